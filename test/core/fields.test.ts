/**
 * Field validation as every surface shares it (library, CLI, HTTP): an empty
 * value is a value and is checked like one, numbers past 2^53 are "too large"
 * with the maximum named, and number fields take the forms a client's
 * String(n) writes.
 */
import { describe, expect, it } from 'vitest';
import { findAction } from '../../src/actions/index.js';
import { ValidationError } from '../../src/core/errors.js';
import { validateInput } from '../../src/core/run.js';

const PDF = new Uint8Array([0x25, 0x50, 0x44, 0x46]);

/** The messages validation gives for `field`, or the values when it passes. */
function check(action: string, raw: Record<string, string | Uint8Array | number>): Record<string, unknown> | Record<string, string[]> {
  try {
    return validateInput(findAction(action)!, { file: PDF, ...raw });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return { errors: err.errors } as unknown as Record<string, string[]>;
  }
}
const errorsOf = (action: string, raw: Record<string, string | Uint8Array | number>) =>
  (check(action, raw) as { errors?: Record<string, string[]> }).errors ?? {};

describe('an empty value is a value (docs/contract.md, "Fields": a boolean is true or false, anything else a 400)', () => {
  it('an empty boolean is refused, naming the field: allow_print= never keeps printing allowed', () => {
    const errors = errorsOf('add_restrictions', { owner_password: 'owner', allow_print: '' });
    expect(errors.allow_print).toEqual(['is empty; send true or false, or leave the field out for the default (true)']);
  });

  it.each([
    ['rotate_pages', 'angle', /^is empty; send one of 0, 90, 180, 270, -90, -180, -270$/],
    ['split_by_page_count', 'page_count', /^is empty; send whole number, 1 or greater$/],
    ['add_text_watermark', 'font_size', /^is empty; send number from 4 to 400 points, or leave the field out for the default/],
    ['add_text_watermark', 'position', /^is empty; send one of center, .*default \(center\)$/],
    ['add_text_watermark', 'color', /^is empty; send colour as #RRGGBB, or leave the field out for the default \(#808080\)$/],
    ['add_password', 'encryption_algorithm', /^is empty; send one of AES-128, AES-256/],
  ])('%s: an empty %s is refused with what to send', (action, field, message) => {
    const raw: Record<string, string> = { [field]: '' };
    if (action === 'add_text_watermark') raw.line_1 = 'DRAFT';
    if (action === 'add_password') raw.password = 'secret';
    const errors = errorsOf(action, raw);
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field][0]).toMatch(message);
  });

  it('an empty required text or page field is refused as empty; an empty optional one too when it has rules', () => {
    expect(errorsOf('add_password', { password: '' }).password).toEqual(['is empty; it must be at least 4']);
    expect(errorsOf('add_text_watermark', { line_1: '' }).line_1).toEqual(['is empty; it must be at least 1']);
    expect(errorsOf('add_text_watermark', { line_1: 'A', line_2: '' }).line_2).toEqual(['is empty; it must be at least 1']);
    expect(errorsOf('reorder_pages', { page_order: '' }).page_order?.[0]).toMatch(/^is empty: give pages such as/);
    expect(errorsOf('extract_pages', { pages: '' }).pages?.[0]).toMatch(/^is empty: give pages such as/);
  });

  it("keeps the two empties that mean something: user_password (the contract: empty means none) and remove_password's empty password", () => {
    expect(check('add_restrictions', { owner_password: 'owner', user_password: '' })).not.toHaveProperty('user_password');
    expect(check('remove_password', { password: '' })).toMatchObject({ password: '' });
  });

  it('an omitted field is still its default, and an omitted required one "is required"', () => {
    expect(check('add_restrictions', { owner_password: 'owner' })).toMatchObject({ allow_print: true });
    expect(errorsOf('rotate_pages', {}).angle).toEqual(['is required']);
  });
});

describe('integers', () => {
  it('one past 2^53 is "too large", naming the largest accepted, not "not a whole number"', () => {
    const errors = errorsOf('split_by_size', { maximum_bytes: '9007199254740993' });
    expect(errors.maximum_bytes).toEqual(['is too large: the largest accepted is 9007199254740991 (2^53 - 1); got 9007199254740993']);
    expect(check('split_by_size', { maximum_bytes: '9007199254740991' })).toMatchObject({ maximum_bytes: 9007199254740991 });
    expect(errorsOf('split_by_size', { maximum_bytes: 2 ** 60 }).maximum_bytes?.[0]).toMatch(/^is too large/);
  });

  it('a field with its own bounds names them, with the digits as sent', () => {
    expect(errorsOf('split_by_page_count', { page_count: '-99999999999999999999' }).page_count).toEqual(['must be 1 or greater; got -99999999999999999999']);
    expect(errorsOf('rotate_pages', { angle: '99999999999999999999' }).angle?.[0]).toMatch(/^must be one of 0, 90.*; got 99999999999999999999$/);
  });

  it('text that is not decimal digits is still "a whole number written in decimal digits"', () => {
    for (const text of ['1.0', '1e3', '0x10', 'ten']) {
      expect(errorsOf('split_by_page_count', { page_count: text }).page_count?.[0], text).toMatch(/^must be a whole number written in decimal digits/);
    }
  });
});

describe('numbers', () => {
  it('take decimal text and the exponent form String(n) gives very small numbers (1e-7)', () => {
    for (const [text, value] of [
      ['12', 12],
      ['12.5', 12.5],
      ['-0.5', -0.5],
      ['.5', 0.5],
      ['1e-7', 1e-7],
      ['2.5E1', 25],
      [' 7 ', 7],
    ] as const) {
      expect(check('add_text_watermark', { line_1: 'A', rotation: text }), text).toMatchObject({ rotation: value });
    }
  });

  it('refuse other text, and 1e400 (Infinity) is out of range like any large number', () => {
    expect(errorsOf('add_text_watermark', { line_1: 'A', rotation: 'NaN' }).rotation?.[0]).toMatch(/^must be a number such as 12, 12.5 or -0.5; got "NaN"/);
    expect(errorsOf('add_text_watermark', { line_1: 'A', rotation: 'Infinity' }).rotation?.[0]).toMatch(/^must be a number/);
    expect(errorsOf('add_text_watermark', { line_1: 'A', rotation: '1e400' }).rotation).toEqual(['must be from -360 to 360 degrees; got 1e400']);
  });
});
