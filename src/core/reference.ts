/**
 * The actions' reference in Markdown, generated from their declarations as
 * the OpenAPI document is: the README's "Actions" section between its
 * markers. test/readme.test.ts fails when the README and the declarations
 * disagree; `npm run readme` rewrites the section.
 */
import { kebabName, type AnyAction } from './action.js';
import { describeDefault, describeRules, type Field } from './fields.js';

export const REFERENCE_START = '<!-- actions: generated from the declarations by `npm run readme`; do not edit by hand -->';
export const REFERENCE_END = '<!-- end of actions -->';

const GROUPS: Record<AnyAction['group'], string> = {
  security: 'Passwords, permissions and signatures',
  pages: 'Page operations',
  split: 'Splitting',
  watermark: 'Watermarks',
};

export function actionsReference(actions: readonly AnyAction[]): string {
  const lines: string[] = ['| action | command line | what it does |', '| --- | --- | --- |'];
  for (const action of actions) {
    lines.push(`| [\`${action.name}\`](#${action.name}) | \`pdfsvc ${commandOf(action)}\` | ${escape(action.summary)} |`);
  }
  for (const [group, title] of Object.entries(GROUPS)) {
    lines.push('', `### ${title}`);
    for (const action of actions.filter((a) => a.group === group)) lines.push('', ...actionSection(action));
  }
  return `${REFERENCE_START}\n${lines.join('\n')}\n${REFERENCE_END}`;
}

function commandOf(action: AnyAction): string {
  return action.aliases?.[0] ?? kebabName(action.name);
}

function actionSection(action: AnyAction): string[] {
  const lines = [
    `#### \`${action.name}\``,
    '',
    `\`POST /v1/${action.name}\` · \`pdfsvc ${commandOf(action)}\`${action.output === 'documents' ? ' · several output documents (see [Splitting](#splitting-outputs))' : ''}`,
    '',
    escape(`${action.summary}${action.description ? ` ${action.description}` : ''}`),
    '',
    '| field | command line | accepts | default |',
    '| --- | --- | --- | --- |',
  ];
  for (const [name, field] of Object.entries(action.fields as Record<string, Field>)) {
    const option = field.kind === 'file' && field.accepts === 'pdf' ? (field.multiple ? 'the input files' : 'the input file (or `-`, standard input)') : `\`--${kebabName(name)}\``;
    const rules = `${describeRules(field)}${field.required ? ' (required)' : ''}. ${field.help}`;
    lines.push(`| \`${name}\` | ${option} | ${escape(rules)} | ${escape(describeDefault(field) ?? '')} |`);
  }
  return lines;
}

/** Table cells hold no pipe or line break. */
function escape(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}
