/**
 * The eight permission flags of add_restrictions and the bits of the
 * encryption dictionary's /P they set (ISO 32000-2, table 22; bit 1 is the
 * lowest). Each flag maps onto exactly one bit:
 *
 * | flag                          | /P bit | value  | a reader may, when the bit is set            |
 * | ----------------------------- | -----: | -----: | -------------------------------------------- |
 * | `allow_print`                 |      3 |      4 | print                                        |
 * | `allow_change_content`        |      4 |      8 | change the document other than by 6, 9, 11   |
 * | `allow_copy_content`          |      5 |     16 | copy or extract text and graphics            |
 * | `allow_comment_and_fill_form` |      6 |     32 | add or change annotations, fill form fields  |
 * | `allow_fill_form`             |      9 |    256 | fill form fields (even when bit 6 is clear)  |
 * | `allow_accessibility`         |     10 |    512 | extract text and graphics for accessibility  |
 * | `allow_assemble_document`     |     11 |   1024 | insert, rotate, delete pages; bookmarks      |
 * | `allow_print_high_resolution` |     12 |   2048 | print faithfully (else a degraded print)     |
 *
 * Bits 1 and 2 must be 0; bits 7, 8 and 13 to 32 must be 1. With every flag
 * allowed /P is -4 (0xFFFFFFFC); with none, -3904 (0xFFFFF0C0). Printing at
 * high resolution needs bit 3 as well: a reader that may not print at all
 * prints at no resolution, whatever bit 12 says.
 */
export const PERMISSION_BITS = {
  allow_print: 3,
  allow_change_content: 4,
  allow_copy_content: 5,
  allow_comment_and_fill_form: 6,
  allow_fill_form: 9,
  allow_accessibility: 10,
  allow_assemble_document: 11,
  allow_print_high_resolution: 12,
} as const;

export type PermissionFlag = keyof typeof PERMISSION_BITS;
export type Permissions = Record<PermissionFlag, boolean>;

/** The bits that are always 1 (7, 8, 13–32) and always 0 (1, 2), with no permission granted. */
const BASE = 0xfffff0c0 | 0;

export const ALL_PERMISSIONS = -4;

/** /P (a signed 32-bit integer, as the file stores it) for a set of flags. */
export function permissionValue(flags: Partial<Permissions>): number {
  let p = BASE;
  for (const [flag, bit] of Object.entries(PERMISSION_BITS) as Array<[PermissionFlag, number]>) {
    if (flags[flag] !== false) p |= 1 << (bit - 1);
  }
  return p | 0;
}
