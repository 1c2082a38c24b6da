// What the elements take from the resolved locale: the strings chunk that serves it, and whether it reads right to left.

/** The languages whose built-in strings come as dist/onboarding-strings-<code>.js; English is in the script. */
export const STRING_LANGUAGES = ['fr', 'de', 'es', 'pt-BR', 'ja', 'zh-Hans', 'ar', 'he'];

/**
 * The strings chunk for `locale`: the exact code, else its language (`fr-CA` → `fr`; any Portuguese → `pt-BR`; Chinese
 * in Simplified script, as `zh-CN` and `zh` are, → `zh-Hans`; Traditional has none); undefined for English and others.
 */
export function stringsFileOf(locale: string | undefined): string | undefined {
  if (!locale || STRING_LANGUAGES.includes(locale)) return locale;
  try {
    const { language, script } = new Intl.Locale(locale).maximize();
    const code = language === 'zh' ? `zh-${script}` : language === 'pt' ? 'pt-BR' : language;
    return STRING_LANGUAGES.includes(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Arabic and Hebrew are drawn right to left, whatever the page's direction. */
export const isRightToLeft = (locale: string | undefined): boolean => /^(ar|he)\b/.test(locale ?? '');
