/**
 * What a JavaScript caller of pdfsvc/client passes where the types want
 * something else is refused before anything is sent: bytes in place of the
 * object of fields (one form part per byte), a file as an ArrayBuffer or a
 * path (sent as text, which the server reads as a damaged PDF).
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';

/** A client whose fetch records each request's form and answers with a PDF. */
function recordingClient() {
  const sent: FormData[] = [];
  const client = createClient({
    baseUrl: 'http://pdfsvc.invalid',
    fetch: async (_url, init) => {
      sent.push(init.body as FormData);
      return new Response(new TextEncoder().encode('%PDF-1.7\n'), { headers: { 'content-type': 'application/pdf' } });
    },
  });
  return { client, sent };
}

describe('pdfsvc/client refuses arguments of the wrong shape before sending', () => {
  it('the bytes in place of the object of fields', async () => {
    const { client, sent } = recordingClient();
    await expect(client.rotatePages(new Uint8Array(10) as never)).rejects.toThrow(
      new TypeError('rotatePages takes one object of fields, { file, angle, pages }; got a Uint8Array'),
    );
    await expect(client.call('some_action', 'in.pdf' as never)).rejects.toThrow(
      new TypeError("call('some_action', fields) takes one object of fields; got a string"),
    );
    expect(sent).toEqual([]);
  });

  it('a file as an ArrayBuffer or a path, also among merged files; bytes and Blobs are sent as file parts', async () => {
    const { client, sent } = recordingClient();
    await expect(client.rotatePages({ file: new ArrayBuffer(8) as never, angle: 90 })).rejects.toThrow(
      new TypeError('file: must be a Uint8Array or a Blob (a File); got an ArrayBuffer: pass new Uint8Array(arrayBuffer)'),
    );
    await expect(client.mergeDocuments({ file: [new Uint8Array(8), 'b.pdf' as never] })).rejects.toThrow(
      new TypeError("file: must be a Uint8Array or a Blob (a File); got a string (a path or text is not read as a file): pass the file's bytes"),
    );
    expect(sent).toEqual([]);

    await client.mergeDocuments({ file: [new Uint8Array(8), new File([new Uint8Array(8)], 'b.pdf')] });
    const files = sent[0]!.getAll('file');
    expect(files.map((file) => (file as File).name)).toEqual(['file', 'b.pdf']);
  });
});
