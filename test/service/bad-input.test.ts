import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DEVICES, problemOf, startService, type RunningService } from './harness';

let svc: RunningService;
const device = DEMO_DEVICES[0].id;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.dispose());

interface Case {
  name: string;
  method?: string;
  path: string;
  body?: string;
  contentType?: string;
  status: number;
  code: string;
  /** Text the detail must contain: it names what was wrong. */
  names: string;
}

/** Paths name the organization as ORG; the test puts in the bound one. */
const cases: Case[] = [
  {
    name: 'malformed JSON',
    method: 'POST',
    path: '/hub/conversations/create',
    body: '{"deviceId": ',
    status: 400,
    code: 'malformed_json',
    names: 'not valid JSON',
  },
  {
    name: 'a JSON array instead of an object',
    method: 'POST',
    path: '/hub/conversations/create',
    body: '[]',
    status: 400,
    code: 'validation_failed',
    names: 'body',
  },
  {
    name: 'a missing body',
    method: 'POST',
    path: '/hub/conversations/create',
    body: '',
    status: 400,
    code: 'validation_failed',
    names: 'body',
  },
  {
    name: 'a wrong type in the body',
    method: 'POST',
    path: '/hub/conversations/create',
    body: JSON.stringify({ deviceId: device, startMs: 'soon', endMs: 1 }),
    status: 400,
    code: 'validation_failed',
    names: '"startMs"',
  },
  {
    name: 'a missing body field',
    method: 'POST',
    path: '/hub/conversations/create',
    body: JSON.stringify({ deviceId: device, startMs: 1 }),
    status: 400,
    code: 'validation_failed',
    names: '"endMs" is required',
  },
  {
    name: 'an unknown body field',
    method: 'POST',
    path: '/hub/conversations/create',
    body: JSON.stringify({ deviceId: device, startMs: 1, endMs: 2, deviceID: 'x' }),
    status: 400,
    code: 'validation_failed',
    names: '"deviceID" is not a known property',
  },
  {
    name: 'a negative time',
    method: 'POST',
    path: '/hub/conversations/create',
    body: JSON.stringify({ deviceId: device, startMs: -5, endMs: 2 }),
    status: 400,
    code: 'validation_failed',
    names: '"startMs"',
  },
  {
    name: 'a fractional time',
    path: `/hub/conversations/timeline/${device}?startMs=1.5&endMs=2`,
    status: 400,
    code: 'validation_failed',
    names: '"startMs" must be integer',
  },
  {
    name: 'a text body',
    method: 'POST',
    path: '/hub/conversations/create',
    body: 'deviceId=x',
    contentType: 'text/plain',
    status: 415,
    code: 'unsupported_media_type',
    names: 'application/json',
  },
  {
    name: 'an unknown status',
    path: '/hub/conversations?status=DONE',
    status: 400,
    code: 'validation_failed',
    names: '"status" must be one of ACTIVE, COMPLETED, PROCESSING, UPLOADED, FAILED, FILTERED',
  },
  {
    name: 'an unknown record type',
    path: `/organizations/ORG/labels?types=Podcast`,
    status: 400,
    code: 'validation_failed',
    names: 'ClinicConversation',
  },
  {
    name: 'an unknown sorting property',
    path: `/organizations/ORG/labels?sortingProperty=Name`,
    status: 400,
    code: 'validation_failed',
    names: '"sortingProperty"',
  },
  {
    name: 'a non-boolean',
    path: `/organizations/ORG/labels?isSortingDescending=maybe`,
    status: 400,
    code: 'validation_failed',
    names: '"isSortingDescending" must be boolean',
  },
  {
    name: 'a bad timestamp',
    path: `/organizations/ORG/labels?fromTime=yesterday`,
    status: 400,
    code: 'validation_failed',
    names: '"fromTime" must match format "date-time"',
  },
  {
    name: 'a bad UUID in the path',
    path: '/labels/not-a-uuid',
    status: 400,
    code: 'validation_failed',
    names: 'path parameter "labelId" must match format "uuid"',
  },
  {
    name: 'a bad UUID in the query',
    path: '/devices?organizationId=123',
    status: 400,
    code: 'validation_failed',
    names: '"organizationId" must match format "uuid"',
  },
  {
    name: 'a limit of zero',
    path: `/organizations/ORG/labels?limit=0`,
    status: 400,
    code: 'validation_failed',
    names: '"limit" must be >= 1',
  },
  {
    name: 'a limit too large',
    path: `/organizations/ORG/labels?limit=100000`,
    status: 400,
    code: 'validation_failed',
    names: '"limit" must be <= 1000',
  },
  {
    name: 'a negative offset',
    path: `/organizations/ORG/labels?offset=-1`,
    status: 400,
    code: 'validation_failed',
    names: '"offset" must be >= 0',
  },
  {
    name: 'a pageSize too large',
    path: '/hub/conversations?pageSize=1000',
    status: 400,
    code: 'validation_failed',
    names: '"pageSize" must be <= 100',
  },
  {
    name: 'an unknown query parameter',
    path: '/hub/conversations?page_size=5',
    status: 400,
    code: 'validation_failed',
    names: '"page_size" is not a known property',
  },
  {
    name: 'a device id with a slash-like character',
    path: '/hub/conversations/timeline/a%20b?startMs=1&endMs=2',
    status: 400,
    code: 'validation_failed',
    names: '"deviceId"',
  },
  {
    name: 'an unknown path',
    path: '/labelz',
    status: 404,
    code: 'not_found',
    names: 'GET /api/labelz',
  },
  {
    name: 'an unknown path outside the API',
    path: '/../../etc/passwd',
    status: 404,
    code: 'not_found',
    names: 'No such path',
  },
  {
    name: 'a method the path lacks',
    method: 'DELETE',
    path: '/devices',
    status: 404,
    code: 'not_found',
    names: 'DELETE /api/devices',
  },
  // Every numeric query parameter of every list at the edges of numbers (issue 19): a 400 naming
  // the field, never a 500 from the database.
  ...(
    [
      ['/organizations/ORG/labels', 'offset'],
      ['/organizations/ORG/labels', 'limit'],
      ['/task-boards/00000000-0000-4000-8000-000000000000/tasks', 'offset'],
      ['/task-boards/00000000-0000-4000-8000-000000000000/tasks', 'limit'],
      ['/hub/conversations', 'pageSize'],
      ['/hub/conversations', 'startMs'],
      ['/devices', 'limit'],
    ] as const
  ).flatMap(([path, field]) =>
    ['9007199254740992', '9223372036854775807', '1e20'].map((value) => ({
      name: `${field}=${value} on ${path.split('/')[1]}`,
      path: `${path}?${field}=${value}`,
      status: 400,
      code: 'validation_failed',
      names: `"${field}"`,
    })),
  ),
];

describe('bad input gets a 4xx problem body that names what was wrong, never a 500', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const headers: Record<string, string> = {};
    if (c.body !== undefined) headers['content-type'] = c.contentType ?? 'application/json';
    const path = c.path.replace('ORG', svc.credentials.primary.organizationId);
    const response = await svc.call(path, {
      key: svc.credentials.primary.apiKey,
      method: c.method ?? 'GET',
      headers,
      body: c.body,
    });
    expect(response.status).toBe(c.status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await problemOf(response);
    expect(problem).toMatchObject({
      status: c.status,
      code: c.code,
      type: `https://earmark.dev/problems/${c.code.replaceAll('_', '-')}`,
    });
    expect(problem.title.length).toBeGreaterThan(0);
    expect(problem.detail).toContain(c.names);
  });

  it('lists each invalid field with its location and JSON pointer', async () => {
    const response = await svc.call('/hub/conversations/create', {
      key: svc.credentials.primary.apiKey,
      method: 'POST',
      json: { deviceId: device, startMs: 'soon', endMs: 2 },
    });
    expect((await problemOf(response)).errors).toEqual([
      { location: 'body', pointer: '/startMs', message: 'must be integer' },
    ]);
  });
});
