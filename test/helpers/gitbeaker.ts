import { Gitlab } from '@gitbeaker/rest';

export { listen } from './app.ts';

/** A @gitbeaker/rest client for `token` against the listening app. */
export const gitbeaker = (url: string, token: string) => new Gitlab({ host: url, token });
