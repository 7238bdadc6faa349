/** pdfsvc's version: package.json's, which the build puts in (scripts/build.mjs); 0.0.0-dev when run from the sources. */
declare const __PDFSVC_VERSION__: string | undefined;
export const VERSION = typeof __PDFSVC_VERSION__ === 'string' ? __PDFSVC_VERSION__ : '0.0.0-dev';
