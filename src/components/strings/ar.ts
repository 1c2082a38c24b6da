// The elements' built-in strings in Arabic: dist/onboarding-strings-ar.js, loaded beside the script when the locale is Arabic.
import { defineStrings } from './define.js';

defineStrings('ar', {
  close: 'إغلاق',
  next: 'التالي',
  back: 'السابق',
  done: 'تم',
  submit: 'إرسال',
  skip: 'تخطٍّ',
  stepOf: 'الخطوة {n} من {m}',
  progress: '{n} من {m}',
  completed: 'مكتمل',
  allDone: 'اكتمل كل شيء',
  skipped: 'تم التخطي',
  locked: 'مقفل',
  blocked: 'غير متاح بعد',
  required: 'هذا الحقل مطلوب.',
  invalid: 'يرجى التحقق من هذه القيمة.',
  tooShort: 'استخدم {n} أحرف على الأقل.',
  tooLong: 'استخدم {n} أحرف على الأكثر.',
  tooSmall: 'استخدم {n} أو أكثر.',
  tooLarge: 'استخدم {n} أو أقل.',
  npsLow: 'غير محتمل',
  npsHigh: 'محتمل جدًا',
  rating: '{n} من {m}',
  hint: 'تلميح: {title}',
  gotIt: 'فهمت',
});
