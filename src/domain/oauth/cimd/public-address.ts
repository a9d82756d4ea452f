import { BlockList, isIP } from 'node:net';

/**
 * IPv4 ranges that are not public unicast: the IANA special-purpose registry (RFC 6890 and later) plus
 * multicast and the reserved class E. A metadata fetch to any of them could reach this node's own network.
 */
const IPV4_REFUSED: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.31.196.0', 24, 'AS112'],
  ['192.52.193.0', 24, 'AMT'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'AS112 direct delegation'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (includes broadcast)'],
];

/**
 * IPv6 is checked the other way round: only global unicast (2000::/3) may pass, which already leaves out
 * unspecified, loopback, IPv4-mapped (::ffff:0:0/96), IPv4-compatible, NAT64 (64:ff9b::/96), discard,
 * unique-local (fc00::/7), link-local, site-local and multicast. Inside 2000::/3 these are still refused:
 * the ranges that carry an IPv4 address inside (which could be a private one) and the non-routed ones.
 */
const IPV6_GLOBAL = ['2000::', 3] as const;
const IPV6_REFUSED: readonly [string, number, string][] = [
  ['2001::', 23, 'IETF protocol assignment (includes Teredo, which embeds an IPv4 address)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4 (embeds an IPv4 address)'],
  ['3fff::', 20, 'documentation'],
];

function listOf(ranges: readonly [string, number, string][], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

const v4Refused = listOf(IPV4_REFUSED, 'ipv4');
const v6Refused = listOf(IPV6_REFUSED, 'ipv6');
const v6Global = new BlockList();
v6Global.addSubnet(IPV6_GLOBAL[0], IPV6_GLOBAL[1], 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

function rangeOf(address: string, family: 'ipv4' | 'ipv6'): string | undefined {
  const ranges = family === 'ipv4' ? IPV4_REFUSED : IPV6_REFUSED;
  for (const [network, prefix, kind] of ranges) {
    const one = new BlockList();
    one.addSubnet(network, prefix, family);
    if (one.check(address, family)) return `${kind}, ${network}/${prefix}`;
  }
  return undefined;
}

/**
 * Why `address` may not be fetched from, or undefined when it is a public unicast address. `allowLoopback`
 * (the test-only trust setting) lets 127.0.0.0/8 and ::1 through and nothing else.
 */
export function refusedAddressReason(address: string, allowLoopback = false): string | undefined {
  const version = isIP(address);
  if (version === 0) return 'not an IP address';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (allowLoopback && loopback.check(address, family)) return undefined;
  if (family === 'ipv4') return v4Refused.check(address, 'ipv4') ? rangeOf(address, 'ipv4') : undefined;
  if (!v6Global.check(address, 'ipv6')) return 'not an IPv6 global unicast address (loopback, IPv4-mapped, unique-local, link-local, multicast, ...)';
  return v6Refused.check(address, 'ipv6') ? rangeOf(address, 'ipv6') : undefined;
}
