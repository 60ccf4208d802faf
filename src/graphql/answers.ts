import type { Plugin } from 'graphql-yoga';
import { jsonBytes } from '../http/json-bytes.ts';

/**
 * /api/graphql answers written as bytes by `jsonBytes` (see there): Yoga serializes a result with
 * its `stringify` where it has one and sends what that returns as the body, and a buffer spares
 * the string it would otherwise measure and encode whole (a page of 100 releases: ~170 KB).
 * Streams (subscriptions, incremental delivery) are left to Yoga.
 */
export function jsonBytesPlugin(): Plugin {
  const serializer = jsonBytes as unknown as (result: unknown) => string;
  return {
    onResultProcess({ result }) {
      if (Symbol.asyncIterator in result) return;
      for (const one of Array.isArray(result) ? result : [result]) one.stringify = serializer;
    },
  };
}
