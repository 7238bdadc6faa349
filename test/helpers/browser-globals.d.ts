// The page's globals that code handed to headless Chromium (playwright's page.evaluate and
// addInitScript) uses: that code runs in the browser, but is type-checked with the tests, for Node.
// Only what the tests use, and not TypeScript's DOM library: that would retype Node's own fetch,
// Blob and Headers for the whole program (src/ included).

interface BrowserElement {
  id: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
}

interface HTMLInputElement extends BrowserElement {
  labels: ArrayLike<BrowserElement> | null;
}

declare var window: unknown;
declare var location: { origin: string };
declare var navigator: { clipboard: { readText(): Promise<string> } };
declare var document: {
  activeElement: BrowserElement | null;
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll(selectors: string): Iterable<BrowserElement>;
};
declare function getComputedStyle(element: BrowserElement): { outlineStyle: string };
declare function addEventListener(type: string, listener: (event: unknown) => void): void;
