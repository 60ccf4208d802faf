import { Gitlab } from '@gitbeaker/rest';

/** A @gitbeaker/rest client for `token` against a listening app (`t.base`). */
export const gitbeaker = (url: string, token: string) => new Gitlab({ host: url, token });
