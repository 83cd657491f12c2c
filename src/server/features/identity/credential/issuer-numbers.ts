/**
 * AAMVA issuer identification numbers (IIN): the six digits in a licence barcode's header that
 * name the jurisdiction that issued it. Source: the AAMVA IIN list
 * (https://www.aamva.org/identity/issuer-identification-numbers-(iin)), as carried by the IdParser
 * libraries. One number per jurisdiction; a jurisdiction missing here fails the format check.
 */
export interface Jurisdiction {
  code: string;
  name: string;
  country: 'USA' | 'CAN';
  issuerNumber: string;
}

const table: [code: string, name: string, country: 'USA' | 'CAN', issuerNumber: string][] = [
  ['AL', 'Alabama', 'USA', '636033'],
  ['AK', 'Alaska', 'USA', '636059'],
  ['AZ', 'Arizona', 'USA', '636026'],
  ['AR', 'Arkansas', 'USA', '636021'],
  ['CA', 'California', 'USA', '636014'],
  ['CO', 'Colorado', 'USA', '636020'],
  ['CT', 'Connecticut', 'USA', '636006'],
  ['DE', 'Delaware', 'USA', '636011'],
  ['DC', 'District of Columbia', 'USA', '636043'],
  ['FL', 'Florida', 'USA', '636010'],
  ['GA', 'Georgia', 'USA', '636055'],
  ['HI', 'Hawaii', 'USA', '636047'],
  ['ID', 'Idaho', 'USA', '636050'],
  ['IL', 'Illinois', 'USA', '636035'],
  ['IN', 'Indiana', 'USA', '636037'],
  ['IA', 'Iowa', 'USA', '636018'],
  ['KS', 'Kansas', 'USA', '636022'],
  ['KY', 'Kentucky', 'USA', '636046'],
  ['LA', 'Louisiana', 'USA', '636007'],
  ['ME', 'Maine', 'USA', '636041'],
  ['MD', 'Maryland', 'USA', '636003'],
  ['MA', 'Massachusetts', 'USA', '636002'],
  ['MI', 'Michigan', 'USA', '636032'],
  ['MN', 'Minnesota', 'USA', '636038'],
  ['MS', 'Mississippi', 'USA', '636051'],
  ['MO', 'Missouri', 'USA', '636030'],
  ['MT', 'Montana', 'USA', '636008'],
  ['NE', 'Nebraska', 'USA', '636054'],
  ['NV', 'Nevada', 'USA', '636049'],
  ['NH', 'New Hampshire', 'USA', '636039'],
  ['NJ', 'New Jersey', 'USA', '636036'],
  ['NM', 'New Mexico', 'USA', '636009'],
  ['NY', 'New York', 'USA', '636001'],
  ['NC', 'North Carolina', 'USA', '636004'],
  ['ND', 'North Dakota', 'USA', '636034'],
  ['OH', 'Ohio', 'USA', '636023'],
  ['OK', 'Oklahoma', 'USA', '636058'],
  ['OR', 'Oregon', 'USA', '636029'],
  ['PA', 'Pennsylvania', 'USA', '636025'],
  ['RI', 'Rhode Island', 'USA', '636052'],
  ['SC', 'South Carolina', 'USA', '636005'],
  ['SD', 'South Dakota', 'USA', '636042'],
  ['TN', 'Tennessee', 'USA', '636053'],
  ['TX', 'Texas', 'USA', '636015'],
  ['UT', 'Utah', 'USA', '636040'],
  ['VT', 'Vermont', 'USA', '636024'],
  ['VA', 'Virginia', 'USA', '636000'],
  ['WA', 'Washington', 'USA', '636045'],
  ['WV', 'West Virginia', 'USA', '636061'],
  ['WI', 'Wisconsin', 'USA', '636031'],
  ['WY', 'Wyoming', 'USA', '636060'],
  // Canadian provinces: their barcodes write dates as CCYYMMDD.
  ['AB', 'Alberta', 'CAN', '604432'],
  ['BC', 'British Columbia', 'CAN', '636028'],
  ['MB', 'Manitoba', 'CAN', '636048'],
  ['NB', 'New Brunswick', 'CAN', '636017'],
  ['NL', 'Newfoundland and Labrador', 'CAN', '636016'],
  ['NS', 'Nova Scotia', 'CAN', '636013'],
  ['ON', 'Ontario', 'CAN', '636012'],
  ['PE', 'Prince Edward Island', 'CAN', '604426'],
  ['QC', 'Quebec', 'CAN', '604428'],
  ['SK', 'Saskatchewan', 'CAN', '636044'],
];

export const jurisdictions: readonly Jurisdiction[] = table.map(([code, name, country, issuerNumber]) => ({ code, name, country, issuerNumber }));

const byCode = new Map(jurisdictions.map((jurisdiction) => [jurisdiction.code, jurisdiction]));
const byIssuerNumber = new Map(jurisdictions.map((jurisdiction) => [jurisdiction.issuerNumber, jurisdiction]));

export function findJurisdictionByCode(code: string): Jurisdiction | undefined {
  return byCode.get(code.trim().toUpperCase());
}

export function findJurisdictionByIssuerNumber(issuerNumber: string): Jurisdiction | undefined {
  return byIssuerNumber.get(issuerNumber);
}
