import type { Request, Response } from 'express';
import { CoreError } from '../../errors.js';
import { credentialsOf } from './credentials.js';

/** How many event streams one caller may hold open, across every route that streams (API and site proxy). */
export interface SseCap {
  /** Counts a stream about to open on `res` until it closes; RATE_LIMITED (nothing counted) when the caller holds the most. */
  admit(req: Request, res: Response): CoreError | undefined;
}

/** One count per holder: the bearer value, else the session cookie, else the client address. */
export function createSseCap(maxPerCaller: number | undefined): SseCap {
  const openStreams = new Map<string, number>();
  return {
    admit(req, res) {
      if (maxPerCaller === undefined) return undefined;
      const holder = streamHolderOf(req);
      const open = openStreams.get(holder) ?? 0;
      if (open >= maxPerCaller) {
        return new CoreError('RATE_LIMITED', `At most ${maxPerCaller} event streams may be open at once per caller; close one first`, { retry_after_s: 5 });
      }
      openStreams.set(holder, open + 1);
      res.once('close', () => {
        const left = (openStreams.get(holder) ?? 1) - 1;
        if (left > 0) openStreams.set(holder, left);
        else openStreams.delete(holder);
      });
      return undefined;
    },
  };
}

function streamHolderOf(req: Request): string {
  const creds = credentialsOf(req);
  return creds.bearer ? `b:${creds.bearer}` : creds.session ? `s:${creds.session}` : `ip:${req.socket.remoteAddress ?? ''}`;
}
