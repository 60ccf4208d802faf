/** A unique-index violation (Prisma P2002), e.g. two concurrent creates of the same record. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string })?.code === 'P2002';
}
