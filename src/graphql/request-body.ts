import type { NextFunction, Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { jsonNestedDeeperThan } from '../core/input.ts';
import { MAX_VARIABLES_DEPTH, VariablesTooDeepError } from './operation-checks.ts';

/** The largest GraphQL request body, in bytes: graphql-yoga's default, kept for both readers. */
export const GRAPHQL_BODY_LIMIT = 25_000_000;

const JSON_TYPES = ['application/json', 'application/graphql+json'];

/** The content types graphql-yoga reads as JSON, matched as it matches them (first of a list, parameters allowed). */
function isJsonBody(contentType: string | undefined): boolean {
  const first = contentType?.split(',')[0];
  return !!first && JSON_TYPES.some((type) => first === type || first.startsWith(`${type};`));
}

/** An answer in Yoga's shape for a request refused before Yoga sees it. */
const refuse = (res: Response, status: number, message: string, extensions: Record<string, unknown>) =>
  res.status(status).json({ errors: [{ message, extensions }] });

const isQueryObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;

/**
 * The most operations one batched request (a JSON array, as Apollo's batch link sends) may carry.
 * Each operation keeps its own cost ceiling, so the batch bounds what one request can cost.
 */
export const MAX_BATCH_OPERATIONS = 10;

/** A JSON array of GraphQL requests, which Yoga runs one by one and answers as an array. */
const isBatch = (value: unknown): value is object[] => Array.isArray(value) && value.length > 0 && value.every(isQueryObject);

/**
 * Batched requests as GitLab's Apollo client sends them: 1 to `MAX_BATCH_OPERATIONS` request
 * objects, anything else a 400 (Yoga would answer 413 past its limit, a body-size status, an empty
 * array with an empty answer, and an element that is not an object within a 200).
 */
export function batchLimit(limit = MAX_BATCH_OPERATIONS): Plugin {
  const refuse = (message: string) => new GraphQLError(message, { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } });
  return {
    onRequestParse: () => ({
      onRequestParseDone: ({ requestParserResult }) => {
        if (!Array.isArray(requestParserResult)) return;
        if (requestParserResult.length === 0) throw refuse('A batched request needs at least one operation.');
        if (requestParserResult.length > limit) throw refuse(`Batching is limited to ${limit} operations per request.`);
        // Each one a request object, as Yoga reads them: `[null]` would otherwise reach it as an unexpected error.
        if (!requestParserResult.every((r: unknown) => typeof r === 'object' && r !== null && !Array.isArray(r)))
          throw refuse('Each operation of a batched request must be a JSON object.');
      },
    }),
  };
}

/**
 * Reads a JSON GraphQL request body and hands it to graphql-yoga parsed (`req.body`), which Yoga
 * then uses as it is. Yoga's own reading pipes the body through a web TransformStream (its size
 * limit) and Node's stream pipeline; on Node 20 what that leaves behind keeps the young objects of
 * later requests alive through garbage collections: ~6 MB promoted at every young-generation
 * collection at one connection, none read this way, and a third more requests per second for a
 * trivial query (bench/RESULTS.md). What this reader does not take, Yoga reads and answers as
 * before: other content types, encoded bodies, a declared length over the limit, and any body that
 * is neither a non-empty JSON object nor an array of them (handed over as text, for Yoga's own 400s).
 */
export function graphqlJsonBody(limit = GRAPHQL_BODY_LIMIT) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || !isJsonBody(req.headers['content-type'])) return next();
    const encoding = req.headers['content-encoding'];
    if ((encoding && encoding !== 'identity') || Number(req.headers['content-length']) > limit) return next();
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      chunks.length = 0;
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // A chunked body past the limit: Yoga's answer, and the rest is discarded by Node.
      stop();
      refuse(res, 413, 'Request body too large', { code: 'REQUEST_ENTITY_TOO_LARGE' });
    };
    const onEnd = () => {
      const bytes = Buffer.concat(chunks, size);
      // Variables sit one level inside the body. Refused from the bytes: parsing a body of 10 MB
      // of brackets costs seconds of CPU before any check of the parsed value could run.
      if (jsonNestedDeeperThan(bytes, MAX_VARIABLES_DEPTH + 1)) {
        const error = new VariablesTooDeepError();
        // The extensions Yoga answers for the same error once the body is parsed (code and status).
        return void refuse(res, 400, error.message, { code: error.code, status: error.status });
      }
      const text = bytes.toString('utf8');
      req.body = parsedQuery(text) ?? text;
      next();
    };
    // The client went away mid-body (or the connection broke): its fault, not a server error to log.
    const onError = () => {
      stop();
      refuse(res, 400, 'POST body could not be read.', { code: 'BAD_REQUEST' });
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  };
}

function parsedQuery(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isQueryObject(value) || isBatch(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
