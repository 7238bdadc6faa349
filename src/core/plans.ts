/**
 * The plans and regions, declared once (docs/contract.md, "HTTP"): key checks, the OpenAPI document, the dashboard and the command
 * line's help all read them from here.
 */
export const PLANS = ['free', 'starter', 'business'] as const;
export type Plan = (typeof PLANS)[number];

export const REGIONS = ['global', 'us', 'us-hipaa', 'eu', 'uk', 'ca', 'au', 'jp', 'in', 'br'] as const;
export type Region = (typeof REGIONS)[number];

export const PLAN_REGIONS: Record<Plan, readonly Region[]> = {
  free: ['global'],
  starter: ['global', 'us', 'eu'],
  business: REGIONS,
};

/**
 * The regions a key of `plan` is accepted in: its region limit (null: none)
 * within the plan's. Empty when the limit names none of the plan's regions
 * (a key limited to eu on an account moved to the free plan): such a key is
 * refused everywhere, yet keeps its limit, so that it never reaches a region
 * its owner kept it out of, and works again if the plan comes back.
 */
export function usableRegions(plan: Plan, limit: readonly string[] | null | undefined): Region[] {
  return usableWithin(PLAN_REGIONS[plan], limit);
}

/** usableRegions for a plan given by its regions (the dashboard is handed them). */
export function usableWithin<R extends string>(planRegions: readonly R[], limit: readonly string[] | null | undefined): R[] {
  return planRegions.filter((region) => !limit || limit.includes(region));
}

/** `a, b or c`, for help text. */
export function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
