import { describe, expect, it } from "vitest";
import { webhookUrlProblem } from "../../src/webhooks.js";

const refused = (url: string) => webhookUrlProblem(url, false);

describe("spec 6.5 rule 5: webhook URLs are public HTTPS on the default port", () => {
  it.each([
    "https://hooks.example.com/retention",
    "https://hooks.example.com./retention",
    "https://HOOKS.Example.COM:443/x",
    "https://93.184.215.14/x",
    "https://8.8.8.8/x",
    "https://[2606:4700:4700::1111]/x",
    "https://[2a00:1450:4001:82a::200e]/hook",
  ])("admits %s", (url) => {
    expect(refused(url)).toBeNull();
  });

  it.each([
    ["http://hooks.example.com/x", "scheme"],
    ["https://hooks.example.com:8443/x", "port"],
    ["https://user:pw@hooks.example.com/x", "credentials"],
    ["https://localhost/x", "localhost"],
    ["https://localhost./x", "localhost with the root dot"],
    ["https://LOCALHOST./x", "localhost, upper case"],
    ["https://api.localhost./x", "a .localhost name"],
    ["https://printer.local/x", ".local"],
    ["https://svc.internal./x", ".internal"],
    ["https://nas.home.arpa/x", ".home.arpa"],
    ["https://intranet/x", "single label"],
    ["https://intranet./x", "single label with the root dot"],
  ])("refuses %s (%s)", (url) => {
    expect(refused(url)).toMatch(/^url: /);
  });

  it.each([
    ["0.0.0.0", "this network"],
    ["10.1.2.3", "private"],
    ["100.64.0.1", "shared address space"],
    ["127.0.0.1", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.5.5", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "TEST-NET-1"],
    ["192.88.99.1", "6to4 relay anycast"],
    ["192.168.0.10", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.254", "benchmarking"],
    ["198.51.100.7", "TEST-NET-2"],
    ["203.0.113.9", "TEST-NET-3"],
    ["224.0.0.1", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
  ])("refuses the IPv4 literal %s (%s)", (ip) => {
    expect(refused(`https://${ip}/x`)).toMatch(/^url: /);
  });

  it.each([
    "https://2130706433/x",
    "https://0x7f000001/x",
    "https://0x7f.0.0.1/x",
    "https://0177.0.0.1/x",
    "https://127.1/x",
    "https://10.1/x",
    "https://127.0.0.1./x",
  ])("refuses a private IPv4 address written in another form: %s", (url) => {
    expect(refused(url)).toMatch(/^url: /);
  });

  it.each([
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "IPv4-mapped"],
    ["::ffff:8.8.8.8", "IPv4-mapped (README: refused whatever it maps)"],
    ["64:ff9b::a00:1", "NAT64 of 10.0.0.1"],
    ["100::1", "discard"],
    ["2001::1", "Teredo"],
    ["2001:2::1", "benchmarking"],
    ["2001:db8::1", "documentation"],
    ["2002:a00:1::1", "6to4 of 10.0.0.1"],
    ["3fff::1", "documentation"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["fe80::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
  ])("refuses the IPv6 literal %s (%s)", (ip) => {
    expect(refused(`https://[${ip}]/x`)).toMatch(/^url: /);
  });

  it("with allowLoopbackWebhooks, http(s)://127.0.0.1 on any port is admitted, nothing else loopback", () => {
    expect(webhookUrlProblem("http://127.0.0.1:4000/x", true)).toBeNull();
    expect(webhookUrlProblem("https://127.0.0.1:4000/x", true)).toBeNull();
    expect(webhookUrlProblem("http://localhost:4000/x", true)).not.toBeNull();
    expect(webhookUrlProblem("http://[::1]:4000/x", true)).not.toBeNull();
  });
});
