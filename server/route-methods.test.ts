import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteMethods } from './route-methods.ts';

test('a path is matched against static segments, :parameters and a final *', () => {
  const routes = new RouteMethods();
  routes.add('GET', '/api/seeds');
  routes.add('POST', '/api/seeds');
  routes.add(['DELETE'], '/api/seeds/:id');
  routes.add('get', '/api/domains/:host/requests');
  routes.add('GET', '/assets/*');
  assert.deepEqual(routes.allowed('/api/seeds'), ['GET', 'POST']);
  assert.deepEqual(routes.allowed('/api/seeds/12'), ['DELETE']);
  assert.deepEqual(routes.allowed('/api/seeds/'), [], 'a parameter is never empty');
  assert.deepEqual(routes.allowed('/api/seeds/12/more'), []);
  assert.deepEqual(routes.allowed('/api/domains/example.org/requests'), ['GET']);
  assert.deepEqual(routes.allowed('/api/domains/example.org'), []);
  assert.deepEqual(routes.allowed('/assets/a/b.js'), ['GET']);
  assert.deepEqual(routes.allowed('/api/nope'), []);
});
