// Types for hostile-fixtures.mjs (the tests import it).
/** [file name, what it is, builder] */
export type HostileCase = [name: string, about: string, make: () => Uint8Array];
export declare function zeroBomb(megabytes: number): Buffer;
export declare function withOutline(items: Array<{ num: number; body: string }>, first?: number, last?: number): Uint8Array;
export declare const OUTLINE_DEPTH: number;
/** [file name, what it is, builder, every title the outline holds] */
export declare const OUTLINE_CASES: Array<[name: string, about: string, make: () => Uint8Array, titles: string[]]>;
export declare const HOSTILE_PDFS: HostileCase[];
export declare function png(width: number, height: number, idat: Uint8Array): Buffer;
export declare const HOSTILE_IMAGES: HostileCase[];
export declare const HOSTILE_OUTPUTS: string[];
export declare function buildHostileFixtures(write: (name: string, bytes: Uint8Array) => void): void;
