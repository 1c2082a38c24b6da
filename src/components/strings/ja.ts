// The elements' built-in strings in Japanese: dist/onboarding-strings-ja.js, loaded beside the script when the locale is Japanese.
import { defineStrings } from './define.js';

defineStrings('ja', {
  close: '閉じる',
  next: '次へ',
  back: '戻る',
  done: '完了',
  submit: '送信',
  skip: 'スキップ',
  stepOf: 'ステップ {n}/{m}',
  progress: '{n}/{m}',
  completed: '完了',
  allDone: 'すべて完了',
  skipped: 'スキップ済み',
  locked: 'ロック中',
  blocked: 'まだ利用できません',
  required: 'この項目は必須です。',
  invalid: 'この値を確認してください。',
  tooShort: '{n} 文字以上で入力してください。',
  tooLong: '{n} 文字以内で入力してください。',
  tooSmall: '{n} 以上を入力してください。',
  tooLarge: '{n} 以下を入力してください。',
  npsLow: '可能性は低い',
  npsHigh: '可能性は高い',
  rating: '{n}/{m}',
  hint: 'ヒント: {title}',
  gotIt: 'OK',
});
