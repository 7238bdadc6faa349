/**
 * The real-document corpus in ../shared/corpus (see its README.md): where it
 * is, and its MANIFEST.jsonl as typed entries. The corpus is optional: the
 * corpus tier skips itself when the folder is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** ../shared/corpus, relative to the repository root. */
const corpusDir = new URL('../../../shared/corpus/', import.meta.url);
export const corpusPath = fileURLToPath(corpusDir);
const manifestUrl = new URL('MANIFEST.jsonl', corpusDir);
export const hasCorpus = existsSync(manifestUrl);

/** The repository, its CLI entry, and the built CLI the corpus tier runs (it tests what users install). */
export const repo = fileURLToPath(new URL('../../', import.meta.url));
export const bin = `${repo}bin/pdfsvc.js`;
export const builtCli = `${repo}dist/cli.js`;

/** The manifest fields the tests use (the file has more; see the corpus README). */
export interface CorpusEntry {
  /** Path relative to the corpus folder (`files/<source>/<name>`). */
  file: string;
  source_repo: string;
  source_path: string;
  bytes: number;
  is_pdf: boolean;
  /** `qpdf --check` exit 0 or 3. */
  qpdf_readable: boolean;
  qpdf_check_exit: number;
  qpdf_warning_count: number | null;
  /** Page count from qpdf --json; null when qpdf cannot parse the file. */
  pages: number | null;
  encrypted: boolean | null;
  needs_password: boolean | null;
  signed: boolean | null;
  sig_field_count: number | null;
  signed_sig_field_count: number | null;
  damaged: boolean | null;
  /** Other `repo:path` entries with identical bytes. */
  same_content_as: string[];
}

export function readManifest(): CorpusEntry[] {
  return readFileSync(manifestUrl, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CorpusEntry);
}

/** Absolute path of an entry's file. */
export function entryPath(entry: CorpusEntry): string {
  return fileURLToPath(new URL(entry.file, corpusDir));
}

/** Drops entries whose bytes equal an earlier entry's (`same_content_as`); returns kept and skipped. */
export function withoutDuplicates(entries: CorpusEntry[]): { kept: CorpusEntry[]; skipped: CorpusEntry[] } {
  const seen = new Set<string>();
  const kept: CorpusEntry[] = [];
  const skipped: CorpusEntry[] = [];
  for (const entry of entries) {
    if (entry.same_content_as.some((other) => seen.has(other))) skipped.push(entry);
    else kept.push(entry);
    seen.add(`${entry.source_repo}:${entry.source_path}`);
  }
  return { kept, skipped };
}

/** A signature with a value: editing would invalidate it (docs/contract.md, "Inputs and outputs"). */
export function isSigned(entry: CorpusEntry): boolean {
  return Boolean(entry.signed) && (entry.signed_sig_field_count ?? 0) > 0;
}
