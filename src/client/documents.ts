/**
 * The documents of a split action's answer, in whichever packaging the
 * server chose from our Accept: multipart/mixed (asked for first) or the JSON
 * envelope (docs/contract.md, "Split outputs"). Parts without a filename
 * get the contract's names.
 */
import { partName, type NamedDocument } from '../core/action.js';
import { boundaryOf, filenameOf, parseMultipart } from './multipart.js';

export function documentsFromBody(contentType: string, body: Uint8Array): NamedDocument[] {
  const media = contentType.split(';')[0].trim().toLowerCase();
  if (media === 'multipart/mixed') {
    const boundary = boundaryOf(contentType);
    if (!boundary) throw new Error('the server answered multipart/mixed without a boundary');
    return parseMultipart(body, boundary).map((part, i) => ({ name: filenameOf(part.headers['content-disposition']) ?? partName(i), bytes: part.body }));
  }
  if (media === 'application/json') {
    const envelope = JSON.parse(new TextDecoder().decode(body)) as { documents?: Array<{ name?: string; content?: string }> };
    if (!Array.isArray(envelope.documents)) throw new Error('the server answered JSON without a documents array');
    return envelope.documents.map((doc, i) => ({ name: doc.name ?? partName(i), bytes: fromBase64(doc.content ?? '') }));
  }
  throw new Error(`the server answered a split with ${JSON.stringify(media)}; expected multipart/mixed or application/json`);
}

/** Base64 to bytes with atob (Node 20 and browsers alike). */
function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
