// Types for region-checks.mjs (test/deploy/multi-region.test.ts imports it).
export type Region = 'global' | 'eu' | 'us-hipaa';
export declare const ALLOWED: Record<'business' | 'starter' | 'free', Region[]>;
export declare const REGIONS: Region[];
export declare function planRefusal(plan: string, region: string): string;
export declare const DOCUMENT_TEXT: string;
export declare const FILE_NAME: string;
export declare const WATERMARK: string;
export declare const DOCUMENT_TRACES: string[];
export declare function patientRecord(pages?: number): Promise<Uint8Array>;
export declare function formBody(fields: Record<string, string>, file: Uint8Array): Promise<{ body: Buffer; contentType: string }>;
