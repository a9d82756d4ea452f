import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import { resourcePath } from '../../lib/paths.js';

export type ExplorerRoute = (req: Request, res: Response) => Promise<void>;

/**
 * True for the explorer's pages and assets: `/`, `/catalog`, `/m/{slug}` and `/explorer/...`. The first
 * character after the slash decides, so an `/api` path costs one comparison.
 */
export function isExplorerPath(p: string): boolean {
  const c = p.charCodeAt(1);
  if (c === 97) return false; // 'a': /api/...
  if (p.length === 1) return true;
  if (c === 109) return p.charCodeAt(2) === 47; // '/m/'
  if (c === 99) return p === '/catalog';
  if (c === 101) return p.startsWith('/explorer/');
  return false;
}

/** Self only: no inline script or style, no other origin, never framed. */
export const EXPLORER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const SLUG = /^\/m\/[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?\/?$/;

interface Asset {
  type: string;
  body: Buffer;
}

/**
 * The explorer: static pages from `resources/explorer/`, read once into memory (the folder is small and
 * ships with the package). Pages carry a self-only Content-Security-Policy and `no-referrer`, since a
 * machine page's URL may hold a share token.
 */
export function createExplorerRoute(dir = resourcePath('explorer')): ExplorerRoute {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type) assets.set(name, { type, body: readFileSync(path.join(dir, name)) });
  }
  const page = (name: string): Asset => {
    const asset = assets.get(name);
    if (!asset) throw new Error(`explorer page ${name} is missing from ${dir}`);
    return asset;
  };
  const home = page('index.html');
  const machine = page('machine.html');
  const catalog = page('catalog.html');

  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      res.status(405).type('text/plain').send('Use GET');
      return;
    }
    const p = req.path;
    let asset: Asset | undefined;
    let cache = 'no-cache';
    if (p === '/') asset = home;
    else if (p === '/catalog') asset = catalog;
    else if (SLUG.test(p)) asset = machine;
    else if (p.startsWith('/explorer/')) {
      asset = assets.get(p.slice('/explorer/'.length));
      cache = 'public, max-age=300';
    }
    res.setHeader('Content-Security-Policy', EXPLORER_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (!asset) {
      res.status(404).type('text/plain').send(`Not found: ${p}`);
      return;
    }
    res.setHeader('Cache-Control', cache);
    res.status(200).type(asset.type).send(asset.body);
  };
}
