export function depthScanBase64(): Promise<string>;
export function depthScanModule(base64: string): string;
