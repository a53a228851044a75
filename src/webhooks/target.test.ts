import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isPublicAddress,
  type Resolver,
  UnresolvedHost,
  UnsafeTarget,
  WebhookTargets,
} from './target.adapter.ts';

/** 93.184.215.14 (public) and 127.0.0.1, 10.0.0.1, 169.254.169.254, 192.0.2.45 (not) in the IPv6 forms that carry an IPv4 address. */
const PUBLIC_ADDRESSES = [
  '93.184.215.14',
  '8.8.8.8',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:93.184.215.14',
  '::ffff:5db8:d70e',
  '::93.184.215.14',
  '::ffff:0:93.184.215.14',
  '64:ff9b::93.184.215.14',
  '64:ff9b::5db8:d70e',
  '2002:5db8:d70e::1',
  // Teredo: server 65.54.227.120, client 93.184.215.14 (stored inverted)
  '2001:0:4136:e378:8000:63bf:a247:28f1',
];

const NON_PUBLIC_ADDRESSES = [
  '127.0.0.1',
  '127.255.255.254',
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.20',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '192.0.2.45',
  '224.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  // IPv4-compatible
  '::127.0.0.1',
  '::7f00:1',
  '::10.0.0.1',
  '::a9fe:a9fe',
  // IPv4-mapped
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:192.0.2.45',
  // IPv4-translated
  '::ffff:0:127.0.0.1',
  '::ffff:0:a00:1',
  // NAT64, well-known prefix and the local-use one
  '64:ff9b::127.0.0.1',
  '64:ff9b::7f00:1',
  '64:ff9b::10.0.0.1',
  '64:ff9b::169.254.169.254',
  '64:ff9b:1::a00:1',
  '64:ff9b:1::5db8:d70e',
  // 6to4
  '2002:7f00:1::1',
  '2002:a00:1::',
  '2002:a9fe:a9fe::1',
  '2002:c000:22d::1',
  // Teredo with a loopback client, with a private server
  '2001:0:4136:e378:8000:63bf:80ff:fffe',
  '2001:0:a00:1:8000:63bf:a247:28f1',
  // other special IPv6 ranges
  'fe80::1',
  'fc00::1',
  'fd12:3456::1',
  'fec0::1',
  'ff02::1',
  '100::1',
  '2001:db8::1',
  '2001:2::1',
  '2001:10::1',
  '3fff::1',
  '5f00::1',
  '4000::1',
  'not an address',
  '',
];

describe('isPublicAddress', () => {
  for (const address of PUBLIC_ADDRESSES) {
    it(`takes ${address}`, () => {
      assert.equal(isPublicAddress(address), true);
    });
  }
  for (const address of NON_PUBLIC_ADDRESSES) {
    it(`refuses ${address || 'the empty string'}`, () => {
      assert.equal(isPublicAddress(address), false);
    });
  }
});

const strict = () => new WebhookTargets({ webhookAllowPrivateUrls: false });
const relaxed = () => new WebhookTargets({ webhookAllowPrivateUrls: true });

describe('WebhookTargets.parse', () => {
  const accepted = [
    'https://hooks.example.com/slotwise',
    'https://hooks.example.com:443/slotwise',
    'https://hooks.example.com:1024/slotwise',
    'https://hooks.example.com:8443/slotwise',
    'https://hooks.example.com:65535/slotwise',
    'https://93.184.215.14/slotwise',
    'https://[2606:4700:4700::1111]/slotwise',
    'https://[::ffff:93.184.215.14]/slotwise',
    'https://[64:ff9b::93.184.215.14]/slotwise',
  ];
  for (const url of accepted) {
    it(`takes ${url}`, () => {
      assert.ok(strict().parse(url) instanceof URL);
    });
  }

  const refused: [string, RegExp][] = [
    ['http://hooks.example.com/slotwise', /https/],
    ['ftp://hooks.example.com/slotwise', /https/],
    ['not a url', /absolute URL/],
    ['https://hooks.example.com:65536/slotwise', /absolute URL/],
    ['https://hooks.example.com:0/slotwise', /port/],
    ['https://hooks.example.com:22/slotwise', /port/],
    ['https://hooks.example.com:25/slotwise', /port/],
    ['https://hooks.example.com:80/slotwise', /port/],
    ['https://hooks.example.com:1023/slotwise', /port/],
    ['https://user@hooks.example.com/slotwise', /user name or password/],
    ['https://user:secret@hooks.example.com/slotwise', /user name or password/],
    ['https://:secret@hooks.example.com/slotwise', /user name or password/],
    ['https://127.0.0.1/hooks', /not a public address/],
    ['https://127.1/hooks', /not a public address/],
    ['https://0x7f000001/hooks', /not a public address/],
    ['https://2130706433/hooks', /not a public address/],
    ['https://0177.0.0.1/hooks', /not a public address/],
    ['https://[::1]/hooks', /not a public address/],
    ['https://[::127.0.0.1]/hooks', /not a public address/],
    ['https://[::7f00:1]/hooks', /not a public address/],
    ['https://[::ffff:127.0.0.1]/hooks', /not a public address/],
    ['https://[::ffff:0:127.0.0.1]/hooks', /not a public address/],
    ['https://[64:ff9b::127.0.0.1]/hooks', /not a public address/],
    ['https://[64:ff9b::a9fe:a9fe]/hooks', /not a public address/],
    ['https://[2002:7f00:1::1]/hooks', /not a public address/],
    ['https://[2002:a9fe:a9fe::1]/hooks', /not a public address/],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks', /not a public address/],
    ['https://[fe80::1]/hooks', /not a public address/],
  ];
  for (const [url, reason] of refused) {
    it(`refuses ${url}`, () => {
      assert.throws(
        () => strict().parse(url),
        (error: Error) => {
          assert.ok(error instanceof UnsafeTarget);
          assert.match(error.message, reason);
          return true;
        },
      );
    });
  }

  it('lets WEBHOOK_ALLOW_PRIVATE_URLS take http and private addresses, on the default port too', () => {
    for (const url of [
      'http://127.0.0.1:8080/hooks',
      'http://localhost/hooks',
      'https://10.0.0.7/hooks',
      'https://[::1]/hooks',
      'https://[::127.0.0.1]:8443/hooks',
    ]) {
      assert.ok(relaxed().parse(url) instanceof URL, url);
    }
  });

  it('keeps the port and user-info rules under WEBHOOK_ALLOW_PRIVATE_URLS', () => {
    for (const url of [
      'http://127.0.0.1:22/hooks',
      'https://10.0.0.7:25/hooks',
      'http://user:secret@127.0.0.1:8080/hooks',
    ]) {
      assert.throws(() => relaxed().parse(url), UnsafeTarget, url);
    }
  });
});

/** A resolver of a few names; any other name does not resolve. */
const resolverOf =
  (names: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = names[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const NAMES = {
  'public.example.com': ['93.184.215.14', '2606:4700:4700::1111'],
  'mapped.example.com': ['93.184.215.14', '::ffff:127.0.0.1'],
  'compatible.example.com': ['::7f00:1'],
  'nat64.example.com': ['64:ff9b::a00:1'],
  'sixtofour.example.com': ['2002:a9fe:a9fe::1'],
  'teredo.example.com': ['2001:0:4136:e378:8000:63bf:80ff:fffe'],
  'empty.example.com': [],
};

describe('WebhookTargets resolving a name', () => {
  it('registers a name that resolves only to public addresses, or not yet at all', async () => {
    const targets = new WebhookTargets({ webhookAllowPrivateUrls: false }, resolverOf(NAMES));
    for (const url of ['https://public.example.com/hooks', 'https://nowhere.example.com/hooks']) {
      assert.equal((await targets.checkRegistration(url)).href, url);
    }
  });

  it('refuses a name with any address that is not public, without naming the address', async () => {
    const targets = new WebhookTargets({ webhookAllowPrivateUrls: false }, resolverOf(NAMES));
    for (const host of [
      'mapped.example.com',
      'compatible.example.com',
      'nat64.example.com',
      'sixtofour.example.com',
      'teredo.example.com',
    ]) {
      const url = new URL(`https://${host}/hooks`);
      for (const check of [() => targets.checkRegistration(url.href), () => targets.addressFor(url)]) {
        await assert.rejects(check(), (error: Error) => {
          assert.ok(error instanceof UnsafeTarget, host);
          assert.match(
            error.message,
            new RegExp(
              `^${host.replaceAll('.', '\\.')} resolves to an address that is not public \\(a server started with WEBHOOK_ALLOW_PRIVATE_URLS=true`,
            ),
          );
          return true;
        });
      }
    }
  });

  it('answers the checked address at send time, and a name that does not resolve as such', async () => {
    const targets = new WebhookTargets({ webhookAllowPrivateUrls: false }, resolverOf(NAMES));
    assert.deepEqual(await targets.addressFor(new URL('https://public.example.com/hooks')), {
      address: '93.184.215.14',
      family: 4,
    });
    for (const host of ['nowhere.example.com', 'empty.example.com']) {
      await assert.rejects(targets.addressFor(new URL(`https://${host}/hooks`)), UnresolvedHost);
    }
    await assert.rejects(targets.addressFor(new URL('https://public.example.com:22/hooks')), UnsafeTarget);
  });
});
