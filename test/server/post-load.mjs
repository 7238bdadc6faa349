// Load from a process of its own (test/server/serve.test.ts): posts one PDF
// to an action N times at once and prints the statuses and output sizes as
// JSON, so the test process's event loop times only the server.
// Usage: node post-load.mjs URL KEY FILE COUNT [field=value ...]
import { readFile } from 'node:fs/promises';

const [url, key, file, count, ...fields] = process.argv.slice(2);
const bytes = await readFile(file);
const results = await Promise.all(
  Array.from({ length: Number(count) }, async () => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'in.pdf');
    for (const field of fields) form.append(field.slice(0, field.indexOf('=')), field.slice(field.indexOf('=') + 1));
    const response = await fetch(url, { method: 'POST', body: form, headers: { 'X-API-Key': key } });
    return { status: response.status, bytes: (await response.arrayBuffer()).byteLength };
  }),
);
process.stdout.write(JSON.stringify(results));
