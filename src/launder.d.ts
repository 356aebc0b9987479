// launder ships no types; sanitize-html checks link targets with this function of it.
declare module 'launder' {
  /** True when `href` should be rejected: a scheme outside `allowedSchemes`, or protocol-relative unless allowed. */
  export function naughtyHref(href: string, options?: { allowedSchemes?: string[]; allowProtocolRelative?: boolean }): boolean;
}
