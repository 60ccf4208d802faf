const DAY_MS = 86_400_000;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `date.toISOString()`, computed in JavaScript: `2021-03-09T14:58:50.007Z`. Answers hold thousands
 * of timestamps (a page of 100 releases: 1,100), and the built-in leaves optimized code for a
 * C++ call, several times dearer than this (bench/RESULTS.md, "Figures behind the code"). The calendar date
 * comes from the day number by the civil-from-days algorithm (eras of 400 years, years starting
 * in March so that the leap day comes last). Years outside 0000-9999, which ISO writes with a
 * sign and six digits, and invalid dates are left to the built-in.
 */
export function isoTimestamp(date: Date): string {
  const time = date.getTime();
  const days = Math.floor(time / DAY_MS);
  let ms = time - days * DAY_MS;
  const shifted = days + 719_468; // days since 0000-03-01
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (!(year >= 0 && year <= 9_999)) return date.toISOString();
  const hours = Math.floor(ms / 3_600_000);
  ms -= hours * 3_600_000;
  const minutes = Math.floor(ms / 60_000);
  ms -= minutes * 60_000;
  const seconds = Math.floor(ms / 1_000);
  ms -= seconds * 1_000;
  const yyyy = year < 1_000 ? `000${year}`.slice(-4) : `${year}`;
  return `${yyyy}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(ms)}Z`;
}
