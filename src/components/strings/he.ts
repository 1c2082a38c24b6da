// The elements' built-in strings in Hebrew: dist/onboarding-strings-he.js, loaded beside the script when the locale is Hebrew.
import { defineStrings } from './define.js';

defineStrings('he', {
  close: 'סגירה',
  next: 'הבא',
  back: 'הקודם',
  done: 'סיום',
  submit: 'שליחה',
  skip: 'דילוג',
  stepOf: 'שלב {n} מתוך {m}',
  progress: '{n} מתוך {m}',
  completed: 'הושלם',
  allDone: 'הכול הושלם',
  skipped: 'דולג',
  locked: 'נעול',
  blocked: 'עדיין לא זמין',
  required: 'שדה חובה.',
  invalid: 'נא לבדוק את הערך.',
  tooShort: 'יש להזין לפחות {n} תווים.',
  tooLong: 'יש להזין לכל היותר {n} תווים.',
  tooSmall: 'יש להזין {n} ומעלה.',
  tooLarge: 'יש להזין {n} ומטה.',
  npsLow: 'לא סביר',
  npsHigh: 'סביר מאוד',
  rating: '{n} מתוך {m}',
  hint: 'רמז: {title}',
  gotIt: 'הבנתי',
});
