import { hashString, Rng } from "./rng.js";

/** Deterministic profile attributes the "network" answers for a profile slug (same slug, same person). */

export const DEPARTMENTS = [
  "engineering",
  "sales",
  "product",
  "marketing",
  "design",
  "finance",
  "operations",
  "support",
] as const;

const TITLES: Record<(typeof DEPARTMENTS)[number], readonly string[]> = {
  engineering: ["Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager", "SRE"],
  sales: ["Account Executive", "Sales Development Rep", "Sales Manager", "Solutions Engineer"],
  product: ["Product Manager", "Senior Product Manager", "Product Analyst"],
  marketing: ["Marketing Manager", "Content Strategist", "Growth Marketer"],
  design: ["Product Designer", "UX Researcher", "Design Lead"],
  finance: ["Financial Analyst", "Controller", "Accountant"],
  operations: ["Operations Manager", "People Partner", "Recruiter"],
  support: ["Support Engineer", "Customer Success Manager", "Support Lead"],
};

const LOCATIONS = [
  "Berlin, Germany",
  "London, UK",
  "New York, NY",
  "Austin, TX",
  "Toronto, Canada",
  "Lisbon, Portugal",
  "Remote",
];

const FIRST = [
  "Ada",
  "Ben",
  "Chloe",
  "Dev",
  "Elena",
  "Farid",
  "Grace",
  "Hugo",
  "Ines",
  "Jonas",
  "Kira",
  "Liam",
  "Maya",
  "Noah",
  "Olga",
  "Pavel",
  "Quinn",
  "Rosa",
  "Sami",
  "Tara",
  "Umar",
  "Vera",
  "Wen",
  "Yusuf",
  "Zoe",
];
const LAST = [
  "Adler",
  "Brooks",
  "Costa",
  "Dubois",
  "Eriksen",
  "Fischer",
  "Garcia",
  "Hughes",
  "Ito",
  "Jensen",
  "Kowalski",
  "Lopez",
  "Meyer",
  "Nakamura",
  "Okafor",
  "Petrov",
  "Rossi",
  "Silva",
  "Tanaka",
  "Varga",
  "Weber",
  "Young",
];

export interface Persona {
  title: string;
  department: string;
  location: string;
}

export function personaFor(slug: string): Persona {
  const rng = new Rng(hashString(slug));
  const department = rng.pick(DEPARTMENTS);
  return { department, title: rng.pick(TITLES[department]), location: rng.pick(LOCATIONS) };
}

/** A deterministic full name and slug for the n-th generated person of a seed. */
export function generatedPerson(rng: Rng, n: number): { name: string; slug: string } {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  return { name: `${first} ${last}`, slug: `${first}-${last}-${(n + 1).toString(16).padStart(4, "0")}1`.toLowerCase() };
}

export function profileImageFor(slug: string): string {
  return `https://media.emulator.example/profile-images/${encodeURIComponent(slug)}.jpg`;
}

/** Whether a person matches a competitor's role filters: department equality or free text in the title. */
export function matchesRoleFilters(persona: Persona, filters: readonly string[]): boolean {
  if (filters.length === 0) return true;
  return filters.some((f) => {
    const needle = f.trim().toLowerCase();
    return needle !== "" && (persona.department === needle || persona.title.toLowerCase().includes(needle));
  });
}
