/**
 * The ISO 4217 currency codes a stablecoin B-20 may declare (base/base
 * `b20_stablecoin/currency.rs` @3f0a0634, `IsoCurrency::from_code`): active fiat codes, upper
 * case; anything else (lower case, unknown codes, crypto tickers) is `InvalidCurrency`.
 */
const ISO_4217 = new Set(
  (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD " +
    "CAD CDF CHF CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF " +
    "GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK " +
    "LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD " +
    "OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN " +
    "SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD XOF " +
    "XPF YER ZAR ZMW ZWG"
  ).split(" "),
);

/** Whether `code` is on the stablecoin currency allowlist. */
export function isIsoCurrency(code: string): boolean {
  return ISO_4217.has(code);
}
