/**
 * `pdfsvc accounts`, `pdfsvc keys` on the database, `pdfsvc keys import` and
 * `pdfsvc usage`, run as a user runs them, against the embedded store and a
 * real PostgreSQL. What they wrote is read back through the store (and, for
 * keys, through KeyStore, the lookup the server uses).
 */
import { execa } from 'execa';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyStore, hashKey, newKey, newKeyId } from '../../src/server/keys.js';
import type { DatabaseConfig } from '../../src/store/database.js';
import { openStore, type Store } from '../../src/store/store.js';
import { fixturePath } from '../helpers/pdf-tools.js';
import { CLI } from '../server/spawn.js';
import { BACKENDS, tempDir } from './backends.js';

/** The environment of a user with nothing configured: config and data directories of their own, no pdfsvc variables. */
function cleanEnv(): Record<string, string> {
  const home = tempDir();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('PDFSVC_')) env[name] = value;
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
}

function cliFor(config: DatabaseConfig, env = cleanEnv()) {
  const where = config.url ? ['--database-url', config.url] : ['--data-dir', config.dataDir!];
  return (args: string[]) => execa('node', [CLI, ...args, ...where], { reject: false, env, extendEnv: false });
}

async function withStore<T>(config: DatabaseConfig, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

// Time-outs are the harness's: every step starts a CLI that opens the database (the embedded one loads
// PostgreSQL compiled to WebAssembly), minutes in all on a machine running a second npm test and more.
describe.each(BACKENDS)('the command line on $name', (backend) => {
  it("keys create --plan with no --account (DECISIONS.md §4's form): the key goes to the plan's own account, made once", { timeout: 600_000 }, async () => {
    const config = await backend.fresh(true);
    const pdfsvc = cliFor(config);
    // DECISIONS.md §4's form names no account: the key goes to the plan's own account, made once.
    for (const name of ['cli-1', 'cli-2']) {
      const made = await pdfsvc(['keys', 'create', '--plan', 'free', '--name', name]);
      expect(made.exitCode, made.stderr).toBe(0);
      expect(made.stdout).toMatch(/^pdfsvc_[A-Za-z0-9_-]{43}\n?$/);
      expect(made.stderr).toMatch(/account default-free, free plan\); it is shown only this once/);
      expect(/created account default-free/.test(made.stderr), made.stderr).toBe(name === 'cli-1');
      await withStore(config, async (store) => {
        expect(new KeyStore(await store.loadKeys()).find(made.stdout.trim())).toMatchObject({ name, plan: 'free', accountName: 'default-free' });
      });
    }
    // Its plan changed since: a key made there would not have the plan asked for.
    expect((await pdfsvc(['accounts', 'set-plan', 'default-free', 'starter'])).exitCode).toBe(0);
    const changed = await pdfsvc(['keys', 'create', '--plan', 'free']);
    expect(changed.exitCode).toBe(2);
    expect(changed.stderr).toMatch(/^pdfsvc: plan: the account default-free has the starter plan now; name an account with --account/m);
  });

  it('accounts and keys: create, list, rotate, revoke, re-plan, suspend, delete', { timeout: 600_000 }, async () => {
    const config = await backend.fresh(true);
    const pdfsvc = cliFor(config);

    const created = await pdfsvc([
      'accounts',
      'create',
      'acme',
      '--email',
      'ops@acme.test',
      '--plan',
      'starter',
      '--dashboard-url',
      'https://dash.example.test/dashboard/',
    ]);
    expect(created.exitCode, created.stderr).toBe(0);
    const link = created.stdout.trim();
    expect(link).toMatch(/^https:\/\/dash\.example\.test\/dashboard\/set-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/created account acme \(a_[0-9a-f]{12}, starter plan, ops@acme\.test\)/);
    expect(created.stderr).toMatch(/works once, and expires at \d{4}-/);

    const key = await pdfsvc(['keys', 'create', '--account', 'acme', '--name', 'ci', '--regions', 'eu']);
    expect(key.exitCode, key.stderr).toBe(0);
    const secret = key.stdout.trim();
    expect(secret).toMatch(/^pdfsvc_[A-Za-z0-9_-]{43}$/);
    expect(key.stderr).toMatch(/account acme, starter plan, only eu\); it is shown only this once/);

    // What the link and the key are worth, read back from the store.
    await withStore(config, async (store) => {
      expect((await store.passwordTokenAccount(new URL(link).searchParams.get('token')!))?.name).toBe('acme');
      expect(new KeyStore(await store.loadKeys()).find(secret)).toMatchObject({ name: 'ci', plan: 'starter', accountName: 'acme', regions: ['eu'] });
    });
    // A new link (the first stops working). No --dashboard-url and no server holding the database to ask: the default, said to be a guess.
    const guessed = await pdfsvc(['accounts', 'link', 'acme']);
    expect(guessed.exitCode, guessed.stderr).toBe(0);
    expect(guessed.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:8080\/dashboard\/set-password\?token=/);
    expect(guessed.stderr).toMatch(/^the link's address http:\/\/127\.0\.0\.1:8080\/dashboard is a guess \(no pdfsvc serve holds the database/m);
    expect(created.stderr).not.toMatch(/guess/);

    const refusals: Array<[string[], RegExp]> = [
      [['keys', 'create', '--account', 'acme', '--regions', 'jp'], /^pdfsvc: regions: the starter plan does not include the jp region/m],
      [['keys', 'create'], /^pdfsvc: account: name the account the key is for \(--account NAME; see pdfsvc accounts list\), or give --plan/m],
      [['keys', 'create', '--account', 'acme', '--plan', 'business'], /^pdfsvc: plan: a key has its account's plan/m],
      [['keys', 'create', '--account', 'acme', '--expires', 'someday'], /^pdfsvc: expires: "someday" is neither a duration/m],
      [['accounts', 'create', 'beta', '--email', 'not-an-address', '--plan', 'free'], /^pdfsvc: email: "not-an-address" is not an e-mail address/m],
      [['accounts', 'create', 'acme', '--email', 'x@acme.test', '--plan', 'free'], /^pdfsvc: name: an account named "acme" already exists/m],
      [['accounts', 'set-plan', 'nobody', 'free'], /^pdfsvc: no account named "nobody"/m],
      [['accounts', 'set-plan', 'acme', 'gold'], /^pdfsvc: plan: must be one of free, starter, business/m],
    ];
    for (const [args, message] of refusals) {
      const run = await pdfsvc(args);
      expect(run.exitCode, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }

    const rotated = await pdfsvc(['keys', 'rotate', 'ci', '--account', 'acme', '--grace', '1h']);
    expect(rotated.exitCode, rotated.stderr).toBe(0);
    const replacement = rotated.stdout.trim();
    expect(replacement).toMatch(/^pdfsvc_/);
    const listed = await pdfsvc(['keys', 'list', '--json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    // Oldest first: the replaced key, renamed, then its replacement under the old name.
    expect(rows.map((r) => [r.account, r.name, r.plan, r.regions, r.revoked, r.expires === null])).toEqual([
      ['acme', expect.stringMatching(/^ci-old-k_|^ci-old-/), 'starter', ['eu'], null, false],
      ['acme', 'ci', 'starter', ['eu'], null, true],
    ]);
    for (const row of rows)
      expect(Object.keys(row).sort()).toEqual([
        'account',
        'created',
        'expires',
        'id',
        'last_used',
        'name',
        'plan',
        'prefix',
        'regions',
        'revoked',
        'usable_regions',
      ]);
    expect(rows.map((r) => r.usable_regions)).toEqual([['eu'], ['eu']]);
    expect(rows.map((r) => r.prefix).sort()).toEqual([secret.slice(0, 13), replacement.slice(0, 13)].sort());
    for (const text of [listed.stdout, listed.stderr]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(replacement);
    }

    // Down to free (global only): both eu keys now work nowhere, and set-plan and keys list say so.
    const downgraded = await pdfsvc(['accounts', 'set-plan', 'acme', 'free']);
    expect(downgraded.exitCode, downgraded.stderr).toBe(0);
    expect(
      downgraded.stderr.match(
        /^warning: the key ci(-old-\S+)? \(k_[0-9a-f]+\) is limited to eu, which the free plan does not include: every server refuses it/gm,
      ),
    ).toHaveLength(2);
    const nowhere = await pdfsvc(['keys', 'list']);
    expect(nowhere.stdout.match(/ eu \(none on free: works nowhere\) /g)).toHaveLength(2);
    expect(nowhere.stderr).toMatch(/^warning: usable in no region, being limited to regions outside their account's plan: ci-old-\S+ \(k_\w+\), ci \(k_\w+\)/m);
    expect((JSON.parse((await pdfsvc(['keys', 'list', '--json'])).stdout) as Array<Record<string, unknown>>).map((r) => r.usable_regions)).toEqual([[], []]);
    await withStore(config, async (store) => expect(new KeyStore(await store.loadKeys()).find(secret)).toMatchObject({ plan: 'free', regions: ['eu'] }));
    // The warnings' way out: set-regions, refused as the dashboard refuses outside the plan; `all` lets the key work in every region of the plan.
    for (const [regions, message] of [
      ['eu', /^pdfsvc: regions: the free plan does not include the eu region; it includes global$/m],
      ['mars', /^pdfsvc: regions: unknown region "mars"; use some of global, us, /m],
      [',', /^pdfsvc: regions: name at least one region, or all for every region of the plan$/m],
    ] as const) {
      const refused = await pdfsvc(['keys', 'set-regions', 'ci', regions, '--account', 'acme']);
      expect({ exitCode: refused.exitCode, regions }).toEqual({ exitCode: 2, regions });
      expect(refused.stderr).toMatch(message);
    }
    const unknownKey = await pdfsvc(['keys', 'set-regions', 'nobody', 'all']);
    expect(unknownKey.stderr).toMatch(/^pdfsvc: no live key with the name or id "nobody"/m);
    expect(downgraded.stderr).toMatch(/its regions change \(pdfsvc keys set-regions k_\w+ all, or the dashboard\)/);
    const everywhere = await pdfsvc(['keys', 'set-regions', 'ci', 'all', '--account', 'acme']);
    expect(everywhere.exitCode, everywhere.stderr).toBe(0);
    expect(everywhere.stderr).toMatch(
      /^ci \(k_\w+, account acme\) now works in every region of the free plan \(global\): every server applies it within 2 s$/m,
    );
    await withStore(config, async (store) => {
      expect(new KeyStore(await store.loadKeys()).find(replacement)).toMatchObject({ plan: 'free' });
      expect(new KeyStore(await store.loadKeys()).find(replacement)?.regions).toBeUndefined();
    });
    // The table says which regions a key without a limit of its own works in: its plan's.
    expect((await pdfsvc(['keys', 'list'])).stdout).toMatch(/^k_\w+ +acme +ci +\S+ +free +plan's: global +/m);
    expect(
      (JSON.parse((await pdfsvc(['keys', 'list', '--json'])).stdout) as Array<Record<string, unknown>>).map((r) => [r.name, r.regions, r.usable_regions]),
    ).toEqual([
      [expect.stringMatching(/^ci-old-/), ['eu'], []],
      ['ci', null, ['global']],
    ]);
    // Back on starter: no warning, nothing marked.
    const upgraded = await pdfsvc(['accounts', 'set-plan', 'acme', 'starter']);
    expect(upgraded.stderr).not.toMatch(/warning/);
    const listedAgain = await pdfsvc(['keys', 'list']);
    expect(listedAgain.stdout).not.toMatch(/works nowhere/);
    expect(listedAgain.stderr).toBe('');
    const limited = await pdfsvc(['keys', 'set-regions', 'ci', 'eu, us,eu', '--account', 'acme']);
    expect(limited.stderr).toMatch(/^ci \(k_\w+, account acme\) now works in only eu, us: every server applies it within 2 s$/m);
    await withStore(config, async (store) =>
      expect(new KeyStore(await store.loadKeys()).find(replacement)).toMatchObject({ plan: 'starter', regions: ['eu', 'us'] }),
    );

    expect((await pdfsvc(['keys', 'revoke', 'ci', '--account', 'acme'])).exitCode).toBe(0);
    expect((await pdfsvc(['accounts', 'set-plan', 'acme', 'business'])).exitCode).toBe(0);
    const suspended = await pdfsvc(['accounts', 'suspend', 'acme']);
    expect(suspended.stderr).toMatch(/suspended acme: its keys get 403 within 2 s/);
    const accounts = JSON.parse((await pdfsvc(['accounts', 'list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(accounts).toEqual([
      expect.objectContaining({ name: 'acme', email: 'ops@acme.test', plan: 'business', status: 'suspended', keys: 1, password_set: false }),
    ]);
    await withStore(config, async (store) => {
      const lookup = new KeyStore(await store.loadKeys());
      expect(lookup.find(replacement)).toBeUndefined();
      expect(lookup.find(secret)).toMatchObject({ plan: 'business', suspended: true });
    });
    expect((await pdfsvc(['accounts', 'resume', 'acme'])).exitCode).toBe(0);
    expect((await pdfsvc(['accounts', 'delete', 'acme'])).exitCode).toBe(0);
    const after = await pdfsvc(['accounts', 'list']);
    expect(after.stderr).toMatch(/no accounts in /);
    await withStore(config, async (store) => expect(await store.loadKeys()).toEqual([]));
  });

  it('usage: csv, json and table give the counts made, for the month and account asked', { timeout: 600_000 }, async () => {
    const config = await backend.fresh(true);
    const ids = await withStore(config, async (store) => {
      const acme = await store.createAccount({ name: 'acme', email: 'ops@acme.test', plan: 'business' });
      const beta = await store.createAccount({ name: 'beta', email: 'ops@beta.test', plan: 'free' });
      // A name from before the key-name rule (src/core/key-name.ts), brought in by `keys import`: the comma must be quoted in the CSV.
      const oldRuleKey = { id: newKeyId(), name: 'web, public', plan: 'business' as const, hash: hashKey(newKey()), created: '2026-10-01T00:00:00.000Z' };
      const [web] = (await store.importKeys([oldRuleKey], () => 'acme')).imported;
      const batch = (await store.createKey({ account: 'acme', name: 'batch' })).record;
      const solo = (await store.createKey({ account: 'beta', name: 'solo' })).record;
      const base = { requests2xx: 0, requests4xx: 0, requests5xx: 0, pages: 0, bytesIn: 0, bytesOut: 0 };
      await store.addUsage([
        {
          ...base,
          keyId: web.id,
          keyName: web.name,
          accountId: acme.id,
          accountName: 'acme',
          region: 'eu',
          day: '2026-11-01',
          requests2xx: 10,
          requests4xx: 2,
          pages: 30,
          bytesIn: 1000,
          bytesOut: 3000,
        },
        { ...base, keyId: web.id, keyName: web.name, accountId: acme.id, accountName: 'acme', region: 'us', day: '2026-11-30', requests5xx: 1, bytesIn: 50 },
        {
          ...base,
          keyId: batch.id,
          keyName: batch.name,
          accountId: acme.id,
          accountName: 'acme',
          region: 'eu',
          day: '2026-11-15',
          requests2xx: 5,
          pages: 500,
          bytesIn: 9_000_000_000,
          bytesOut: 8_000_000_000,
        },
        {
          ...base,
          keyId: solo.id,
          keyName: solo.name,
          accountId: beta.id,
          accountName: 'beta',
          region: 'global',
          day: '2026-11-02',
          requests2xx: 1,
          pages: 1,
          bytesIn: 10,
          bytesOut: 20,
        },
        { ...base, keyId: solo.id, keyName: solo.name, accountId: beta.id, accountName: 'beta', region: 'global', day: '2026-10-31', requests2xx: 99 },
      ]);
      return { acme: acme.id, web: web.id, batch: batch.id, beta: beta.id, solo: solo.id };
    });
    const pdfsvc = cliFor(config);

    const csv = await pdfsvc(['usage', '--month', '2026-11', '--format', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    expect(csv.stdout.trim().split('\n')).toEqual([
      'day,account,account_id,key,key_id,region,requests,requests_2xx,requests_4xx,requests_5xx,pages,bytes_in,bytes_out',
      `2026-11-15,acme,${ids.acme},batch,${ids.batch},eu,5,5,0,0,500,9000000000,8000000000`,
      `2026-11-01,acme,${ids.acme},"web, public",${ids.web},eu,12,10,2,0,30,1000,3000`,
      `2026-11-30,acme,${ids.acme},"web, public",${ids.web},us,1,0,0,1,0,50,0`,
      `2026-11-02,beta,${ids.beta},solo,${ids.solo},global,1,1,0,0,1,10,20`,
    ]);

    const json = await pdfsvc(['usage', '--month', '2026-11', '--account', 'acme', '--format', 'json']);
    expect(json.exitCode, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as { month: string; accounts: Array<Record<string, unknown>>; rows: unknown[] };
    expect(report.month).toBe('2026-11');
    expect(report.accounts).toEqual([
      {
        account: 'acme',
        account_id: ids.acme,
        requests: 18,
        requests_2xx: 15,
        requests_4xx: 2,
        requests_5xx: 1,
        pages: 530,
        bytes_in: 9_000_001_050,
        bytes_out: 8_000_003_000,
      },
    ]);
    expect(report.rows).toHaveLength(3);

    const table = await pdfsvc(['usage', '--month', '2026-11']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^acme\s+\(total\)\s+18\s+15\s+2\s+1\s+530\s+9000001050\s+8000003000$/m);
    expect(table.stdout).toMatch(/^beta\s+\(total\)\s+1\s+1\s+0\s+0\s+1\s+10\s+20$/m);

    const october = await pdfsvc(['usage', '--month', '2026-10', '--format', 'csv']);
    expect(october.stdout.trim().split('\n').slice(1)).toEqual([`2026-10-31,beta,${ids.beta},solo,${ids.solo},global,99,99,0,0,0,0,0`]);

    for (const [args, message] of [
      [['usage', '--month', '2026-13'], /^pdfsvc: month: "2026-13" is not a month; write it as YYYY-MM/m],
      [['usage', '--month', '2026-11', '--format', 'xml'], /^pdfsvc: format: must be one of table, csv, json/m],
      [['usage', '--month', '2026-11', '--account', 'nobody'], /^pdfsvc: no account named "nobody"/m],
    ] as Array<[string[], RegExp]>) {
      const run = await pdfsvc(args);
      expect(run.exitCode, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
    }
  });

  it('keys import: every key of a keys file keeps working, each with its plan; importing again adds nothing', { timeout: 600_000 }, async () => {
    const config = await backend.fresh(true);
    const file = join(tempDir(), 'keys.json');
    const env = cleanEnv();
    const make = async (plan: string, name: string) =>
      (await execa('node', [CLI, 'keys', 'create', '--plan', plan, '--name', name, '--keys-file', file], { env, extendEnv: false })).stdout.trim();
    const keys = { laptop: await make('business', 'laptop'), ci: await make('business', 'ci'), trial: await make('free', 'trial') };
    const pdfsvc = cliFor(config, env);

    const imported = await pdfsvc(['keys', 'import', '--keys-file', file]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/created account default-business \(business plan\)/);
    expect(imported.stderr).toMatch(/created account default-free \(free plan\)/);
    expect(imported.stderr).toMatch(/imported 3 key\(s\)/);
    for (const text of [imported.stdout, imported.stderr]) for (const key of Object.values(keys)) expect(text).not.toContain(key);
    await withStore(config, async (store) => {
      const lookup = new KeyStore(await store.loadKeys());
      expect(lookup.find(keys.laptop)).toMatchObject({ name: 'laptop', plan: 'business', accountName: 'default-business' });
      expect(lookup.find(keys.ci)).toMatchObject({ name: 'ci', plan: 'business', accountName: 'default-business' });
      expect(lookup.find(keys.trial)).toMatchObject({ name: 'trial', plan: 'free', accountName: 'default-free' });
    });
    const again = await pdfsvc(['keys', 'import', '--keys-file', file]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/imported 0 key\(s\) .*; 3 were there already/);
  });
});

describe('where keys live without options', () => {
  it('an install with a keys file and no database goes on using the file; after keys import, the database', { timeout: 600_000 }, async () => {
    const env = cleanEnv();
    const pdfsvc = (args: string[]) => execa('node', [CLI, ...args], { reject: false, env, extendEnv: false });
    // Made the way every install before accounts made keys: in the default keys file.
    const made = await pdfsvc(['keys', 'create', '--plan', 'starter', '--name', 'before', '--keys-file', join(env.XDG_CONFIG_HOME, 'pdfsvc', 'keys.json')]);
    expect(made.exitCode, made.stderr).toBe(0);
    const fromFile = await pdfsvc(['keys', 'list', '--json']);
    expect(JSON.parse(fromFile.stdout)).toEqual([expect.objectContaining({ name: 'before', plan: 'starter' })]);
    expect(existsSync(join(env.XDG_DATA_HOME, 'pdfsvc', 'db', 'PG_VERSION'))).toBe(false);
    // --account needs the database, and says how to get there.
    const refused = await pdfsvc(['keys', 'create', '--account', 'x']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/account: keys in a keys file .* have no accounts: move its keys into the database with pdfsvc keys import/);

    const imported = await pdfsvc(['keys', 'import']);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(existsSync(join(env.XDG_DATA_HOME, 'pdfsvc', 'db', 'PG_VERSION'))).toBe(true);
    const fromDatabase = await pdfsvc(['keys', 'list', '--json']);
    expect(JSON.parse(fromDatabase.stdout)).toEqual([expect.objectContaining({ account: 'default', name: 'before', plan: 'starter', prefix: null })]);
  });

  it('plain actions never load the database code', async () => {
    const dir = tempDir();
    // A resolve hook that refuses the database drivers: an action that imported one would fail.
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent("export async function resolve(s, c, next) { if (s === 'pg' || s.startsWith('@electric-sql/pglite')) throw new Error('database code loaded: ' + s); return next(s, c); }"));`,
    );
    const env = cleanEnv();
    const run = (args: string[]) => execa('node', ['--import', hook, CLI, ...args], { reject: false, env, extendEnv: false });
    const pdf = fixturePath('pages-1.pdf');
    const rotated = await run(['rotate', '--angle', '90', pdf, '-o', join(dir, 'out.pdf')]);
    expect(rotated.exitCode, rotated.stderr).toBe(0);
    expect((await run(['--help'])).exitCode).toBe(0);
    // The hook works: a command that needs the database fails under it.
    const control = await run(['accounts', 'list', '--data-dir', join(dir, 'db')]);
    expect(control.exitCode).not.toBe(0);
    expect(control.stderr).toMatch(/database code loaded: @electric-sql\/pglite/);
  });
});
