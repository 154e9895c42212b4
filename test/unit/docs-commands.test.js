// Every `paasmon ...` command line shown in README.md and docs/*.md goes through the CLI's own
// argument parser, with every action replaced by a no-op: an unknown command or option, a missing
// required option or a missing argument fails here, so the docs cannot drift from the CLI.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { createProgram } from '../../collector/cli.js';

const ROOT = new URL('../../', import.meta.url);
const SHELL_FENCES = new Set(['sh', 'bash', 'shell', 'console']);
// `paasmon` where a shell would run it: at the start, after a separator, `$(`, `(` or a backtick,
// after VAR=value assignments and `npx`. (`cf create-user-provided-service paasmon ...` is not a command.)
const COMMAND_START = /(?:^|&&|\|\||[;|(`])\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:npx\s+)?paasmon(?=\s|$)/g;
// A word naming any command ("paasmon COMMAND --help", "paasmon <command>"): a mention, not a command line.
const PLACEHOLDER_COMMAND = /^(<[^>]*>|[A-Z][A-Z_]*)$/;
const MENTION_GAPS = new Set(['commander.missingMandatoryOptionValue', 'commander.missingArgument']);

/** @returns {string[]} README.md and docs/*.md, relative to the repository */
export function documentationFiles() {
  const docs = fs
    .readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

/**
 * Words of a shell command line from `text` up to where the command ends (an unquoted `#` comment,
 * `)`, `|`, `&`, `;`, a redirect `>` or `<`, or backtick), with quotes removed. Variables stay as written ($RUN).
 * @param {string} text
 */
export function shellWords(text) {
  const words = [];
  let word = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      word = (word ?? '') + text.slice(i + 1, end === -1 ? text.length : end);
      i = end === -1 ? text.length : end;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (')|&;`<>'.includes(c) || (c === '#' && word === null)) {
      break;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * Every paasmon command line of a markdown text: in shell code blocks and in inline code.
 * @param {string} markdown
 * @returns {{ line: number, words: string[], text: string }[]}
 */
export function documentedCommands(markdown) {
  /** @type {{ line: number, text: string }[]} */
  const snippets = [];
  const lines = markdown.split('\n');
  /** @type {string | null} */
  let fence = null;
  for (let i = 0; i < lines.length; i++) {
    const opening = /^\s*```\s*(\S*)/.exec(lines[i]);
    if (opening) {
      fence = fence === null ? opening[1] || 'text' : null;
      continue;
    }
    if (fence !== null) {
      if (!SHELL_FENCES.has(fence)) continue;
      // A line continued with a backslash is one command.
      let text = lines[i];
      const start = i;
      while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++i]}`;
      snippets.push({ line: start + 1, text });
    } else {
      // Inline code may wrap onto the next line of its paragraph.
      const paragraph = [lines[i]];
      const start = i;
      while ((paragraph.join('\n').match(/`/g) ?? []).length % 2 === 1 && i + 1 < lines.length)
        paragraph.push(lines[++i]);
      for (const span of paragraph.join(' ').matchAll(/`([^`]+)`/g)) snippets.push({ line: start + 1, text: span[1] });
    }
  }
  const commands = [];
  for (const { line, text } of snippets) {
    for (const match of text.matchAll(COMMAND_START)) {
      const words = shellWords(text.slice(/** @type {number} */ (match.index) + match[0].length));
      // `paasmon: ...` and `paasmon poll: ...` are messages it prints, not command lines.
      if (words.length === 0 || words[0].endsWith(':') || text[match.index + match[0].length] === ':') continue;
      if (PLACEHOLDER_COMMAND.test(words[0])) continue;
      commands.push({ line, words, text: `paasmon ${words.join(' ')}` });
    }
  }
  return commands;
}

/**
 * Parses `words` as `paasmon` would, with every command's action a no-op.
 * @param {string[]} words
 * @returns {Promise<string | null>} null when the parser accepts them, else its message
 */
export async function parseProblem(words) {
  /** @type {string[]} */
  const errors = [];
  const program = createProgram({ env: {}, out: () => {}, err: (line) => errors.push(line) }, () => {});
  /** @param {import('commander').Command} command */
  const stubActions = (command) => {
    // Commands that only group others keep their action: it is what rejects an unknown subcommand.
    if (command.commands.length === 0) command.action(() => {});
    for (const sub of command.commands) stubActions(sub);
  };
  for (const command of program.commands) stubActions(command);
  try {
    await program.parseAsync(words, { from: 'user' });
    return null;
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return null; // --help, --version
    // `paasmon loadgen` in a sentence names the command; its required options are not the point there.
    const mention = words.every((w) => !w.startsWith('-'));
    if (mention && err instanceof CommanderError && MENTION_GAPS.has(err.code)) return null;
    return errors.join(' ') || String(err);
  }
}

describe('every paasmon command shown in README.md and docs/ parses', () => {
  const files = documentationFiles();
  it('finds the command lines of the docs', () => {
    const all = files.flatMap((f) => documentedCommands(fs.readFileSync(new URL(f, ROOT), 'utf8')));
    assert.ok(all.length >= 40, `only ${all.length} command lines found`);
  });
  for (const file of files) {
    it(file, async () => {
      const problems = [];
      for (const command of documentedCommands(fs.readFileSync(new URL(file, ROOT), 'utf8'))) {
        const problem = await parseProblem(command.words);
        if (problem) problems.push(`${path.basename(file)}:${command.line}: ${command.text}\n  ${problem}`);
      }
      assert.equal(problems.length, 0, problems.join('\n'));
    });
  }
});

/**
 * The commands named in the first column of a "| command | does |" table (README's commands
 * table), as command lines.
 * @param {string} markdown
 */
export function tabledCommands(markdown) {
  const commands = [];
  let inTable = false;
  for (const [i, line] of markdown.split('\n').entries()) {
    if (/^\| command \|/.test(line)) inTable = true;
    else if (!line.startsWith('|')) inTable = false;
    else if (inTable && !line.startsWith('|---')) {
      const first = line.split('|')[1];
      for (const span of first.matchAll(/`([^`]+)`/g)) commands.push({ line: i + 1, words: shellWords(span[1]) });
    }
  }
  return commands;
}

describe("every command of README.md's commands table exists", () => {
  const commands = tabledCommands(fs.readFileSync(new URL('README.md', ROOT), 'utf8'));
  it('finds the table', () => assert.ok(commands.length >= 12, `${commands.length} commands`));
  it('parses each', async () => {
    const problems = [];
    for (const command of commands) {
      const problem = await parseProblem(command.words);
      if (problem) problems.push(`README.md:${command.line}: paasmon ${command.words.join(' ')}\n  ${problem}`);
    }
    assert.equal(problems.length, 0, problems.join('\n'));
  });
});

describe('the checker itself', () => {
  it('rejects an unknown option, an unknown command, an unknown subcommand and a missing required option', async () => {
    assert.match(String(await parseProblem(['report', '--runs', '1', '--bogus'])), /unknown option '--bogus'/);
    assert.match(String(await parseProblem(['reprot', '--runs', '1'])), /unknown command 'reprot'/);
    assert.match(String(await parseProblem(['run', 'begin'])), /unknown command 'begin'/);
    assert.match(String(await parseProblem(['loadgen', '--duration', '5s'])), /--url/);
    assert.equal(await parseProblem(['loadgen']), null, 'a mention of the command in a sentence');
    assert.match(String(await parseProblem(['lodgen'])), /unknown command 'lodgen'/);
    assert.equal(await parseProblem(['loadgen', '--url', 'https://<app>/', '--duration', '60s', '--run', 'ID']), null);
    assert.equal(await parseProblem(['poll', '--help']), null);
  });

  it('reads shell blocks and inline code, and skips what is not a command line', () => {
    const markdown = [
      'Run `npx paasmon report --runs 1,2 --format md` or `paasmon COMMAND --help`; `paasmon-loadgen` is an app.',
      'A wrapped span: `npx paasmon loadgen --url https://x/ --duration 60s --app',
      'shop --label "java 2 instances"` ends here. `paasmon poll: unknown option` is a message.',
      '```sh',
      'RUN=$(npx paasmon run start --label "a b" --app shop)   # a comment --not-an-option',
      'cf create-user-provided-service paasmon -p "{}"',
      'psql "$(npx paasmon db url)" -c "SELECT 1" && LOG_LEVEL=debug npx paasmon ingest --from now-15m \\',
      '  --to now',
      '```',
      '```',
      'paasmon demo: output, not a command',
      '```',
    ].join('\n');
    assert.deepEqual(
      documentedCommands(markdown).map((c) => c.words),
      [
        ['report', '--runs', '1,2', '--format', 'md'],
        ['loadgen', '--url', 'https://x/', '--duration', '60s', '--app', 'shop', '--label', 'java 2 instances'],
        ['run', 'start', '--label', 'a b', '--app', 'shop'],
        ['db', 'url'],
        ['ingest', '--from', 'now-15m', '--to', 'now'],
      ],
    );
  });
});
