// Types for the `xliff` package, which ships none: the calls the tests make to write XLIFF as translation pipelines do.
declare module 'xliff' {
  /** A unit as the package holds it; a group holds `groupUnits` instead of text. */
  export interface XliffJsUnit {
    source?: string;
    target?: string;
    additionalAttributes?: Record<string, string>;
    groupUnits?: Record<string, XliffJsUnit>;
  }
  export interface XliffJs {
    sourceLanguage: string;
    targetLanguage?: string;
    /** Units by id, by namespace: a <file>'s id in 2.0, its original in 1.2. */
    resources: Record<string, Record<string, XliffJsUnit>>;
  }
  export function xliff2js(text: string): Promise<XliffJs>;
  export function xliff12ToJs(text: string): Promise<XliffJs>;
  export function js2xliff(js: XliffJs): Promise<string>;
  export function jsToXliff12(js: XliffJs): Promise<string>;
  export function createxliff12(
    srcLng: string,
    trgLng: string,
    srcKeys: Record<string, string>,
    trgKeys: Record<string, string>,
    ns: string,
  ): Promise<string>;
}
