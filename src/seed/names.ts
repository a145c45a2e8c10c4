/** Realistic names for seeded offers: clients, contacts, services, packages, signers' job titles, browsers. */
export const FIRST_NAMES = ['Anna', 'Ben', 'Clara', 'David', 'Elif', 'Felix', 'Greta', 'Hannes', 'Ines', 'Jonas', 'Katrin', 'Lukas', 'Mara', 'Niklas', 'Olga', 'Paul', 'Rosa', 'Samir', 'Tina', 'Yusuf'];
export const LAST_NAMES = ['Becker', 'Schmidt', 'Novak', 'Rossi', 'Dubois', 'Jansen', 'Kowalski', 'Lindqvist', 'Meyer', 'Okafor', 'Petrov', 'Quint', 'Richter', 'Santos', 'Tanaka', 'Ulrich', 'Vogel', 'Weber', 'Yilmaz', 'Zimmer'];
export const COMPANIES = ['Nordlicht Logistik', 'Bergmann Bau', 'Alpenrose Hotels', 'Hafenblick Immobilien', 'Kraftwerk Fitness', 'Lindenhof Kliniken', 'Mosel Weingut', 'Nebula Software', 'Ostsee Reisen', 'Pfeffer & Salz Gastro', 'Quelle Getränke', 'Rheinwerk Maschinen', 'Sonnenfeld Solar', 'Tannenberg Verlag', 'Urban Garden Co', 'Vogelsang Kanzlei', 'Weitblick Optik', 'Zeitgeist Mode', 'Atlas Versicherung', 'Brückner Dental'];
export const SERVICES = ['Website relaunch', 'Brand identity', 'SEO retainer', 'Online shop', 'Social media campaign', 'Photo shoot', 'Mobile app MVP', 'Newsletter setup', 'Trade fair booth', 'Video production', 'Intranet portal', 'Accessibility audit'];
export const PACKAGES = ['Starter', 'Professional', 'Enterprise'];
export const SIGNER_JOB_TITLES = ['Managing Director', 'CFO', 'Head of Marketing', 'Procurement'];
export const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
];
