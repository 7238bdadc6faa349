/**
 * `pdfsvc completion`: the scripts are generated from the command line (and
 * so from the declarations). The bash script is loaded into a real bash and
 * asked what it completes, as a shell would on Tab.
 */
import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actions } from '../../src/actions/index.js';
import { kebabName } from '../../src/core/action.js';
import { tempFile } from '../helpers/pdf-tools.js';

const script = async (shell: string) => (await execa('node', ['bin/pdfsvc.js', 'completion', shell])).stdout;

/** What bash offers for the words typed so far (the last one is being completed). */
async function complete(path: string, words: string[], cwd?: string): Promise<string[]> {
  const program = `source ${path}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _pdfsvc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await execa('bash', ['-c', program], { cwd });
  return stdout.split('\n').filter(Boolean);
}

describe('pdfsvc completion bash', () => {
  it('completes every action name, enumerated values, sub-subcommands and PDF files', async () => {
    const path = tempFile(new TextEncoder().encode(await script('bash')), '.bash');
    expect((await execa('bash', ['-n', path], { reject: false })).exitCode).toBe(0);
    const all = await complete(path, ['pdfsvc', '']);
    for (const action of actions) {
      expect(all).toContain(kebabName(action.name));
      expect(all).toContain(action.name);
    }
    expect(all).toEqual(expect.arrayContaining(['serve', 'keys', 'completion', 'dashboard']));
    expect(await complete(path, ['pdfsvc', 'rot'])).toEqual(['rotate-pages', 'rotate', 'rotate_pages']);
    expect(await complete(path, ['pdfsvc', 'add-text-watermark', '--position', 'top'])).toEqual(['top-left', 'top', 'top-right']);
    expect(await complete(path, ['pdfsvc', 'split-at-page', '--format', ''])).toEqual(['zip', 'json', 'multipart']);
    expect(await complete(path, ['pdfsvc', 'rotate', '--ang'])).toEqual(['--angle']);
    expect(await complete(path, ['pdfsvc', 'keys', ''])).toEqual(['create', 'list', 'rotate', 'revoke', 'rename', 'set-regions', 'import']);
    expect(await complete(path, ['pdfsvc', 'accounts', ''])).toEqual(['create', 'list', 'set-plan', 'suspend', 'resume', 'delete', 'link', 'operator']);
    // Inputs: PDF files (and folders), not other files.
    const folder = tempFile(new Uint8Array(), '').replace(/[^/]*$/, '');
    writeFileSync(`${folder}/completion-input.pdf`, '');
    writeFileSync(`${folder}/completion-notes.txt`, '');
    const offered = await complete(path, ['pdfsvc', 'rotate', '--angle', '90', 'completion-'], folder);
    expect(offered).toEqual(['completion-input.pdf']);
  });

  it('zsh and fish get their own scripts; another shell is exit 2 naming it', async () => {
    expect(await script('zsh')).toMatch(/^autoload -U \+X bashcompinit && bashcompinit$/m);
    const fish = await script('fish');
    expect(fish).toMatch(/complete -c pdfsvc -n "__fish_seen_subcommand_from rotate-pages rotate rotate_pages" -l angle -x/);
    expect(fish).toMatch(/-l position -x -a 'center top-left top top-right/);
    const other = await execa('node', ['bin/pdfsvc.js', 'completion', 'tcsh'], { reject: false });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/pdfsvc: shell: "tcsh" is not one of bash, zsh, fish/);
  });
});
