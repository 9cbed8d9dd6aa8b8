import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A parsed list of addresses and CIDR ranges that may be reached although they are not public. */
export type AddressAllowlist = ReadonlyArray<[Address, number]>;

/** Parses "127.0.0.1", "10.0.0.0/8" or "::1" entries; returns the entry that is not valid as a string. */
export function parseAddressAllowlist(entries: readonly string[]): AddressAllowlist | string {
  const parsed: Array<[Address, number]> = [];
  for (const entry of entries) {
    try {
      if (entry.includes("/")) parsed.push(ipaddr.parseCIDR(entry));
      else {
        const address = ipaddr.parse(entry);
        parsed.push([address, address.kind() === "ipv4" ? 32 : 128]);
      }
    } catch {
      return entry;
    }
  }
  return parsed;
}

/** Returns "ipv4" / "ipv6" for an IP literal (brackets allowed), undefined for a host name. */
export function ipKind(host: string): "ipv4" | "ipv6" | undefined {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return "ipv4";
  if (ipaddr.IPv6.isValid(bare)) return "ipv6";
  return undefined;
}

/**
 * Checks one resolved address: public unicast addresses pass; loopback, private, link-local,
 * unique-local, carrier-grade NAT, multicast, unspecified and reserved ones pass only when the
 * allowlist holds them. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry; other
 * IPv6 addresses are public only inside 2000::/3 (global unicast), so IPv4-compatible ones such as
 * `::127.0.0.1` (`::7f00:1`) and unassigned ones are refused.
 * Returns undefined when allowed, else the address's range name.
 */
export function refusedRange(address: string, allowlist: AddressAllowlist): string | undefined {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "invalid";
  }
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = publicRange(parsed);
  if (range === "unicast") return undefined;
  const allowed = allowlist.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
  return allowed ? undefined : range;
}

/**
 * The one spelling of an IP address that Node's `net.isIP` recognises, so a connection to it needs
 * no DNS lookup: "0x7f.0.0.1" is "127.0.0.1", and an IPv4-mapped IPv6 address is the IPv4 address
 * it carries (the address {@link refusedRange} judged). Call it on an address that passed
 * {@link refusedRange}.
 */
export function canonicalAddress(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toString();
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

// ipaddr.js calls every IPv6 address outside its named ranges "unicast"; only 2000::/3 is routed publicly.
function publicRange(address: Address): string {
  const range = address.range();
  if (range !== "unicast" || address.kind() === "ipv4") return range;
  const v6 = address as ipaddr.IPv6;
  if (v6.match(IPV4_COMPATIBLE)) return "ipv4Compatible";
  return v6.match(GLOBAL_UNICAST) ? "unicast" : "reserved";
}
