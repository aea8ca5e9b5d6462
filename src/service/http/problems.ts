import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  problemType,
  type Problem,
  type ProblemCode,
  type ProblemFieldError,
} from '../../shared/api';

/** An error the handlers throw to answer with RFC 9457 problem details. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly title: string,
    detail: string,
    readonly errors?: ProblemFieldError[],
    readonly headers: Record<string, string> = {},
    /** Extension members of the problem body (RFC 9457 §3.2), such as a 409's conflicts. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: ProblemFieldError[]) =>
  new ProblemError(400, 'validation_failed', 'Invalid request', detail, errors);
export const notFound = (detail: string) => new ProblemError(404, 'not_found', 'Not found', detail);
export const forbidden = (code: ProblemCode, detail: string) =>
  new ProblemError(403, code, 'Forbidden', detail);
export const conflict = (detail: string, extensions: Record<string, unknown> = {}) =>
  new ProblemError(409, 'conflict', 'Conflict', detail, undefined, {}, extensions);
export const unauthorized = (code: ProblemCode, detail: string) =>
  new ProblemError(401, code, 'Unauthorized', detail, undefined, {
    'www-authenticate': 'Bearer realm="clinic-service"',
  });

const LOCATIONS: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

const LOCATION_WORDS: Record<string, string> = {
  body: 'body',
  query: 'query parameter',
  path: 'path parameter',
  header: 'header',
};

interface AjvIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** Turns Fastify's Ajv validation errors into field errors that name what was wrong. */
function fieldErrors(error: FastifyError): ProblemFieldError[] {
  const location = LOCATIONS[error.validationContext ?? 'body'] ?? 'body';
  return (error.validation as AjvIssue[]).map((issue) => {
    let pointer = issue.instancePath;
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'additionalProperties') {
      pointer = `${pointer}/${String(issue.params.additionalProperty)}`;
      message = 'is not a known property';
    } else if (issue.keyword === 'required') {
      pointer = `${pointer}/${String(issue.params.missingProperty)}`;
      message = 'is required';
    } else if (issue.keyword === 'enum') {
      message = `must be one of ${(issue.params.allowedValues as string[]).join(', ')}`;
    }
    return { location, pointer, message };
  });
}

function describe(error: ProblemFieldError): string {
  const name = error.pointer.replace(/^\//, '').replaceAll('/', '.');
  const where = LOCATION_WORDS[error.location] ?? error.location;
  return name ? `${where} "${name}" ${error.message}` : `${where} ${error.message}`;
}

/** A 400 whose detail names every bad field; `note` adds a sentence (what was not done). */
export const invalidFields = (errors: ProblemFieldError[], note = '') =>
  badRequest(`The ${errors.map(describe).join('; ')}.${note && ` ${note}`}`, errors);

/** Maps framework errors (bad JSON, wrong media type, schema failures) to problem details. */
export function toProblemError(error: FastifyError | ProblemError): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error.validation) return invalidFields(fieldErrors(error));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError(
        400,
        'malformed_json',
        'Malformed JSON',
        `The request body is not valid JSON: ${error.message}`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError(
        415,
        'unsupported_media_type',
        'Unsupported media type',
        'Send the body as application/json.',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ProblemError(
        413,
        'payload_too_large',
        'Payload too large',
        'The request body is larger than the service accepts.',
      );
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new ProblemError(
      400,
      'malformed_json',
      'Malformed JSON',
      `The request body is not valid JSON: ${error.message}`,
    );
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ProblemError(
      error.statusCode,
      'validation_failed',
      'Invalid request',
      error.message,
    );
  }
  return new ProblemError(
    500,
    'internal_error',
    'Internal error',
    'The service failed to handle the request.',
  );
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError) {
  const body: Problem & Record<string, unknown> = {
    ...problem.extensions,
    type: problemType(problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    instance: request.url,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type('application/problem+json')
    .serializer(JSON.stringify)
    .send(body);
}
