/**
 * Runs `run` with the process in another time zone (TZ is read by every Date conversion): rows
 * read as local time instead of UTC come out as other instants there.
 */
export async function inZone<T>(zone: string, run: () => Promise<T>): Promise<T> {
  const previous = process.env.TZ;
  process.env.TZ = zone;
  try {
    return await run();
  } finally {
    // Assigning undefined would set the string 'undefined'.
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  }
}
