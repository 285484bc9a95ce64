/** Every alert of either lens, one channel per lens (the alert benches' routing). */
export const BOTH_LENS_ROUTES = [
  { name: "retention", lens: "retention", minRiskLevel: "low", channel: "#hr-alerts" },
  { name: "poaching", lens: "poaching", minRiskLevel: "low", channel: "#poaching-alerts" },
] as const;
