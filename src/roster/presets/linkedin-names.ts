/**
 * The names a customer usually gives the LinkedIn custom field, which no HRIS delivers as a
 * standard field but BambooHR and HiBob: as a label shown to people (selected by `[name=...]`,
 * compared ignoring case) and as a key (compared ignoring case, spaces, `_` and `-`).
 */
export const LINKEDIN_LABELS = ["LinkedIn URL", "LinkedIn", "LinkedIn Profile", "LinkedIn Profile URL"] as const;
export const LINKEDIN_KEYS = ["linkedin_url", "linkedin", "linkedin_profile", "linkedin_profile_url"] as const;
