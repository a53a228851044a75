// test lane: system
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DockerfileParser } from 'dockerfile-ast';
import { parse as parseYaml } from 'yaml';
import { SERVER_HEAP_FLAGS } from '../bench/process.ts';
import { loadConfig } from '../src/config.ts';
import { createTestApp, type TestContext } from './helpers.ts';

/**
 * What no container runtime is needed to know about the Dockerfile and compose.yaml (the linters
 * of `npm run lint:deploy` check their syntax and the compose schema): that the image holds every
 * file and package the service loads, and that the stack's files agree with each other and with
 * the README.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const dockerfile = DockerfileParser.parse(read('Dockerfile'));
const pkg = JSON.parse(read('package.json')) as {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};
/** The V8 heap flags among a command's words. */
const heapFlags = (words: string[]) => words.filter((word) => word.startsWith('--max-'));

interface ComposeService {
  command?: string[];
  depends_on?: string[] | Record<string, { condition: string }>;
  volumes?: string[];
  build?: string;
  environment?: Record<string, string>;
}
const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

/** Source files the running service loads: src/ without the tests and their fixtures. */
function runtimeSources(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return runtimeSources(path);
    return /\.ts$/.test(entry.name) && !/\.(test|fixture)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The specifiers a file loads at run time: static and dynamic imports and re-exports, not `import type`. */
function runtimeImports(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(statement)) if (!match[1]) specifiers.push(match[2]!);
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(match[1]!);
  return specifiers;
}

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The variables `${NAME}`, `${NAME:-default}` or `${NAME:?message}` that a text interpolates. */
const interpolated = (text: string) => [...text.matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]!);

describe('the Dockerfile', () => {
  it('copies paths that exist', () => {
    const sources = dockerfile
      .getCOPYs()
      .flatMap((copy) => copy.getArguments().slice(0, -1))
      .map((argument) => argument.getValue())
      .filter((value) => !value.startsWith('--'));
    assert.ok(sources.includes('src') && sources.includes('migrations'), `copies ${sources.join(', ')}`);
    for (const source of sources) assert.ok(existsSync(join(ROOT, source)), `${source} exists`);
  });

  it('keeps live payments off the simulated processor, also on the embedded database', () => {
    const env = Object.fromEntries(
      dockerfile
        .getENVs()
        .flatMap((instruction) => instruction.getProperties())
        .map((property) => [property.getName(), property.getValue() ?? '']),
    );
    assert.equal(env.SIMULATED_PAYMENTS, 'false');
    assert.equal(loadConfig({ ...env, JWT_SECRET: 'x'.repeat(40) }).simulatedPayments, false);
  });

  it('runs a file of the image with the commands main.ts knows', () => {
    const [cmd] = dockerfile.getCMDs();
    const words = cmd!.getJSONStrings().map((argument) => argument.getJSONValue());
    assert.deepEqual(words, [
      'node',
      ...SERVER_HEAP_FLAGS,
      '--import',
      './src/tracing.ts',
      'src/main.ts',
      'serve',
    ]);
    for (const file of words.filter((word) => word.endsWith('.ts'))) assert.ok(existsSync(join(ROOT, file)));
  });

  it('runs the server and the worker with the heap flags of npm start, as the benchmarks do', () => {
    assert.deepEqual(SERVER_HEAP_FLAGS, ['--max-semi-space-size=16', '--max-old-space-size=1024']);
    const [cmd] = dockerfile.getCMDs();
    assert.deepEqual(
      heapFlags(cmd!.getJSONStrings().map((argument) => argument.getJSONValue())),
      SERVER_HEAP_FLAGS,
    );
    assert.deepEqual(heapFlags(pkg.scripts.worker!.split(' ')), SERVER_HEAP_FLAGS);
    assert.deepEqual(heapFlags(compose.services.worker!.command!), SERVER_HEAP_FLAGS);
  });

  it('installs, without dev dependencies, every package the service imports', () => {
    const missing: string[] = [];
    for (const file of runtimeSources()) {
      for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
        if (!(packageOf(specifier) in pkg.dependencies))
          missing.push(`${relative(ROOT, file)}: ${specifier}`);
      }
    }
    assert.deepEqual(
      missing,
      [],
      'imports of packages outside "dependencies" (npm ci --omit=dev drops them)',
    );
  });

  it('ships every file the service imports: all in src/ or widget/, none a test or fixture', () => {
    const outside: string[] = [];
    // The folders the image copies the service's code from (widget/: the booking widget's source).
    const shipped = ['src', 'widget'];
    for (const folder of shipped)
      assert.match(read('Dockerfile'), new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'));
    for (const file of runtimeSources()) {
      for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(file), specifier);
        const inImage = shipped.some((folder) => !relative(join(ROOT, folder), target).startsWith('..'));
        if (!inImage || /\.(test|fixture)\.ts$/.test(target) || !existsSync(target)) {
          outside.push(`${relative(ROOT, file)}: ${specifier}`);
        }
      }
    }
    assert.deepEqual(outside, []);
    const ignored = read('.dockerignore');
    assert.match(ignored, /^\*\*\/\*\.test\.ts$/m, 'tests stay out of the image');
  });

  it('ships every file and folder the service reads beside its code: copied, and not left out of the context', () => {
    const copied = dockerfile
      .getCOPYs()
      .flatMap((copy) => copy.getArguments().slice(0, -1))
      .map((argument) => argument.getValue());
    const sent = read('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1));
    const reads: string[] = [];
    for (const file of runtimeSources()) {
      for (const match of readFileSync(file, 'utf8').matchAll(
        /new URL\(\s*'([^']+)',\s*import\.meta\.url\)/g,
      )) {
        reads.push(relative(ROOT, resolve(dirname(file), match[1]!)).split(sep)[0]!);
      }
    }
    assert.ok(reads.includes('migrations') && reads.includes('db'), `reads ${reads.join(', ')}`);
    for (const top of new Set(reads)) {
      assert.ok(copied.includes(top), `the Dockerfile copies ${top}`);
      assert.ok(sent.includes(top), `.dockerignore lets ${top} into the context`);
    }
  });
});

describe('compose.yaml', () => {
  it('runs PostgreSQL behind PgBouncer, Redis, migrations once, two API processes and a worker behind a proxy', () => {
    const { services } = compose;
    assert.deepEqual(Object.keys(services).sort(), [
      'api-1',
      'api-2',
      'migrate',
      'pgbouncer',
      'postgres',
      'proxy',
      'redis',
      'worker',
    ]);
    assert.deepEqual(services.migrate!.command, ['node', 'src/main.ts', 'migrate']);
    assert.ok(services.worker!.command!.includes('worker'));
    for (const name of ['api-1', 'api-2', 'worker']) {
      const dependsOn = services[name]!.depends_on as Record<string, { condition: string }>;
      assert.equal(
        dependsOn.migrate?.condition,
        'service_completed_successfully',
        `${name} waits for the migrations`,
      );
      const environment = services[name]!.environment!;
      assert.match(environment.DATABASE_URL!, /@pgbouncer:5432\//, `${name} queries through PgBouncer`);
      assert.match(environment.DATABASE_LISTEN_URL!, /@postgres:5432\//, `${name} listens on PostgreSQL`);
      assert.equal(environment.REDIS_URL, 'redis://redis:6379');
      assert.ok(environment.JWT_SECRET, `${name} gets JWT_SECRET`);
    }
  });

  it('names only services, files and variables that exist', () => {
    const { services } = compose;
    for (const [name, service] of Object.entries(services)) {
      const dependsOn = Array.isArray(service.depends_on)
        ? service.depends_on
        : Object.keys(service.depends_on ?? {});
      for (const target of dependsOn) assert.ok(target in services, `${name} depends on a service ${target}`);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.')) assert.ok(existsSync(join(ROOT, source)), `${name} mounts ${source}`);
      }
      if (service.build) assert.ok(existsSync(join(ROOT, service.build, 'Dockerfile')));
    }
    const example = read('.env.example');
    for (const name of interpolated(read('compose.yaml'))) {
      assert.match(example, new RegExp(`^#? ?${name}=`, 'm'), `.env.example lists ${name}`);
    }
  });

  it('gives the API processes a configuration the service accepts', () => {
    const secrets: Record<string, string> = { POSTGRES_PASSWORD: 'a1b2c3', JWT_SECRET: 'x'.repeat(40) };
    const environment = Object.fromEntries(
      Object.entries(compose.services['api-1']!.environment!).map(([name, value]) => [
        name,
        String(value).replace(
          /\$\{([A-Z0-9_]+)(?::-([^}]*)|:\?[^}]*)?\}/g,
          (_, variable: string, fallback?: string) => fallback ?? secrets[variable]!,
        ),
      ]),
    );
    const config = loadConfig(environment);
    assert.equal(config.databaseUrl, 'postgres://slotwise:a1b2c3@pgbouncer:5432/slotwise');
    assert.equal(config.databaseListenUrl, 'postgres://slotwise:a1b2c3@postgres:5432/slotwise');
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.trustProxy, ['172.29.57.0/24']);
    assert.equal(config.simulatedPayments, false, 'live payments never through the simulated processor');
  });

  it('trusts X-Forwarded-For only from the network the proxy reaches the APIs on', () => {
    const text = read('compose.yaml');
    const subnet = /subnet:\s*(\S+)/.exec(text)?.[1];
    assert.ok(subnet);
    for (const name of ['api-1', 'api-2'])
      assert.equal(compose.services[name]!.environment!.TRUST_PROXY, subnet);
  });
});

describe('.env.example', () => {
  it('lists every variable of the README configuration table', () => {
    const readme = read('README.md');
    const table = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    );
    const variables = [...table.matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((match) => match[1]!);
    assert.ok(variables.length > 10, `read the table: ${variables.join(', ')}`);
    const example = read('.env.example');
    const missing = variables.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example));
    assert.deepEqual(missing, []);
  });
});

describe('the probes the container and the proxy use', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestApp();
  });
  after(() => ctx.close());

  it('answer 200 on a healthy service', async () => {
    const healthcheck = /fetch\(`http:\/\/127\.0\.0\.1:[^/`]+(\/[^`]*)`/.exec(read('Dockerfile'))?.[1];
    const proxyCheck = /health_uri\s+(\S+)/.exec(read('deploy/Caddyfile'))?.[1];
    assert.ok(healthcheck && proxyCheck);
    for (const url of [healthcheck, proxyCheck]) {
      const response = await ctx.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    }
  });
});
