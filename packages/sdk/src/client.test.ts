// test lane: system
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BOOKING_DAY, type BookableBusiness, guest, setupBookable } from '../../../test/booking-fixtures.ts';
import { bearer, createTestApp, type TestContext } from '../../../test/helpers.ts';
import { createSlotwiseClient, type SlotwiseError } from './index.ts';

/** The SDK against the real server on a port: real HTTP, fetch, JSON and headers, no inject. */
let ctx: TestContext;
let baseUrl: string;
let biz: BookableBusiness;
before(async () => {
  ctx = await createTestApp();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  biz = await setupBookable(ctx.app);
});
after(() => ctx.close());

describe('createSlotwiseClient', () => {
  it('reads availability without a key and books the slot with a secret key', async () => {
    const visitor = createSlotwiseClient({ baseUrl });
    const day = await visitor.GET('/v1/availability/{business_id}', {
      params: {
        path: { business_id: biz.tenant.businessId },
        query: { booking_date: BOOKING_DAY, capacity: 2 },
      },
    });
    assert.equal(day.response.status, 200, JSON.stringify(day.error));
    const slot = day.data?.slots.find((candidate) => candidate.available);
    assert.ok(slot, 'the day has a free slot');

    const venue = createSlotwiseClient({ baseUrl, apiKey: biz.tenant.apiKey });
    const created = await venue.POST('/v1/bookings', {
      body: {
        business_id: biz.tenant.businessId,
        booking_date: BOOKING_DAY,
        start_time: slot.time,
        capacity: 2,
        ...guest({ first_name: 'Ada' }),
      },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const booking = created.data!.booking;
    assert.equal(booking.start_time, slot.time);
    assert.equal(booking.capacity, 2);
    assert.match(booking.confirmation_code, /^\w+$/);

    const read = await venue.GET('/v1/manage/bookings/{booking_id}', {
      params: { path: { booking_id: booking.id } },
    });
    assert.equal(read.data?.confirmation_code, booking.confirmation_code);
    assert.equal(read.data?.guest?.first_name, 'Ada');
  });

  it("answers the API's error body, typed, for a refusal", async () => {
    const visitor = createSlotwiseClient({ baseUrl });
    const refused = await visitor.POST('/v1/bookings', {
      body: {
        business_id: biz.tenant.businessId,
        booking_date: BOOKING_DAY,
        start_time: '12:00',
        ...guest(),
      },
    });
    assert.equal(refused.response.status, 401);
    assert.equal(refused.data, undefined);
    const refusal: SlotwiseError | undefined = refused.error;
    assert.equal(refusal?.error.code, 'invalid_token');
  });

  it('sends the key as a bearer credential beside headers of its own', async () => {
    const venue = createSlotwiseClient({
      baseUrl,
      apiKey: biz.tenant.apiKey,
      headers: { 'x-request-id': 'sdk-test-1' },
    });
    const settings = await venue.GET('/v1/manage/settings');
    assert.equal(settings.response.status, 200, JSON.stringify(settings.error));
    assert.equal(settings.response.headers.get('x-request-id'), 'sdk-test-1');
    assert.equal(typeof settings.data?.timezone, 'string');
  });
});

describe("the README's SDK example", () => {
  const example = new URL('../example.ts', import.meta.url);

  it('is packages/sdk/example.ts, word for word', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    assert.ok(readme.includes(`\`\`\`ts\n${readFileSync(example, 'utf8')}\`\`\``));
  });

  it('packs, installs into a fresh project and books a slot there with plain node and its types', async () => {
    const run = promisify(execFile);
    const project = await mkdtemp(join(tmpdir(), 'slotwise-sdk-user-'));
    try {
      const sdkDir = fileURLToPath(new URL('..', import.meta.url));
      const { stdout: packed } = await run('npm', ['pack', '--silent', '--pack-destination', project], {
        cwd: sdkDir,
      });
      const tarball = join(project, packed.trim().split('\n').at(-1)!);
      await writeFile(
        join(project, 'package.json'),
        JSON.stringify({ name: 'user', private: true, type: 'module' }),
      );
      await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project });
      const installed = join(project, 'node_modules', '@slotwise', 'sdk');
      assert.deepEqual((await readdir(join(installed, 'dist'))).sort(), [
        'index.d.ts',
        'index.js',
        'schema.d.ts',
      ]);
      await copyFile(example, join(project, 'example.ts'));

      // The declarations check the example as the user's own editor would.
      const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
      const nodeTypes = fileURLToPath(new URL('../../../node_modules/@types', import.meta.url));
      await run(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--target',
          'es2022',
          '--allowImportingTsExtensions',
          '--typeRoots',
          nodeTypes,
          '--types',
          'node',
          'example.ts',
        ],
        { cwd: project },
      );

      const { stdout } = await run(process.execPath, ['example.ts'], {
        cwd: project,
        env: {
          ...process.env,
          SLOTWISE_URL: baseUrl,
          SLOTWISE_API_KEY: biz.tenant.apiKey,
          SLOTWISE_BUSINESS_ID: biz.tenant.businessId,
        },
      });
      const [, code] = /^booked (\w+) at \d\d:\d\d on \d{4}-\d\d-\d\d$/m.exec(stdout) ?? [];
      assert.ok(code, stdout);
      const listed = await ctx.app.inject({
        method: 'GET',
        url: `/v1/manage/bookings?code=${code}`,
        headers: bearer(biz.tenant.apiKey),
      });
      assert.deepEqual(
        listed.json().items.map((booking: { confirmation_code: string }) => booking.confirmation_code),
        [code],
      );
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
