import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AllowedHosts, parseHostName } from './allowed-hosts.ts';

const config = (host: string, publicHosts: string[] = [], port = 3000) =>
  AllowedHosts.fromConfig({ host, port, publicHosts });

test('a Host value is a name and an optional port', () => {
  assert.deepEqual(parseHostName('LocalHost:3000'), { name: 'localhost', port: 3000 });
  assert.deepEqual(parseHostName('[::1]:8080'), { name: '[::1]', port: 8080 });
  assert.deepEqual(parseHostName('lantern.example.com'), { name: 'lantern.example.com', port: null });
  for (const bad of ['', 'a:b', 'a b', 'x:0', 'x:70000', '::1', 'user@host', 'a/b'])
    assert.equal(parseHostName(bad), null, bad);
});

test('the loopback names on the listening port are always allowed; other ports and names are not', () => {
  const hosts = config('127.0.0.1');
  for (const h of ['127.0.0.1:3000', 'localhost:3000', 'LOCALHOST:3000', '[::1]:3000'])
    assert.equal(hosts.allowsHost(h), true, h);
  for (const h of [
    undefined,
    '',
    '127.0.0.1:3001',
    'localhost',
    '127.0.0.2:3000',
    'evil.example:3000',
    'evil.example',
    '127.0.0.1.nip.io:3000',
  ]) {
    assert.equal(hosts.allowsHost(h), false, String(h));
  }
});

test('HOST is allowed when it names one address or name, not when it is a wildcard', () => {
  assert.equal(config('192.168.1.5').allowsHost('192.168.1.5:3000'), true);
  assert.equal(config('fe80::1').allowsHost('[fe80::1]:3000'), true);
  assert.equal(config('lantern.lan').allowsHost('lantern.lan:3000'), true);
  assert.equal(config('0.0.0.0').allowsHost('0.0.0.0:3000'), false, 'a wildcard is no name a browser uses');
  assert.equal(
    config('0.0.0.0').allowsHost('192.168.1.5:3000'),
    false,
    'every interface still answers only to its listed names',
  );
});

test('a PUBLIC_HOSTS name without a port matches it bare (a reverse proxy) and on the listening port (a LAN name); with a port, only that port', () => {
  const hosts = config('0.0.0.0', ['lantern.example.com', 'lantern.lan:8080']);
  assert.equal(hosts.allowsHost('lantern.example.com'), true);
  assert.equal(hosts.allowsHost('lantern.example.com:3000'), true);
  assert.equal(hosts.allowsHost('lantern.example.com:8443'), false);
  assert.equal(hosts.allowsHost('lantern.lan:8080'), true);
  assert.equal(hosts.allowsHost('lantern.lan'), false);
  assert.equal(hosts.allowsHost('lantern.lan:3000'), false);
  assert.equal(config('0.0.0.0', ['lantern.lan:443']).allowsHost('lantern.lan'), true, 'a browser leaves out :443');
});

test('on port 80 a browser sends loopback names without the port; they are allowed', () => {
  const hosts = config('127.0.0.1', [], 80);
  assert.equal(hosts.allowsHost('localhost'), true);
  assert.equal(hosts.allowsHost('localhost:80'), true);
});

test('origins: only pages of the allowed names, over http or https; the opaque origin "null" never', () => {
  const hosts = config('127.0.0.1', ['lantern.example.com']);
  for (const o of [
    'http://127.0.0.1:3000',
    'http://localhost:3000',
    'http://[::1]:3000',
    'https://lantern.example.com',
    'https://lantern.example.com:3000',
  ]) {
    assert.equal(hosts.allowsOrigin(o), true, o);
  }
  for (const o of [
    'null',
    'http://evil.example:3000',
    'http://127.0.0.1:3001',
    'file://',
    'chrome-extension://abc',
    'not a url',
    'https://lantern.example.com.evil.example',
  ]) {
    assert.equal(hosts.allowsOrigin(o), false, o);
  }
});
