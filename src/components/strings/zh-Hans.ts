// The elements' built-in strings in Simplified Chinese: dist/onboarding-strings-zh-Hans.js, loaded beside the script when the locale is Simplified Chinese.
import { defineStrings } from './define.js';

defineStrings('zh-Hans', {
  close: '关闭',
  next: '下一步',
  back: '上一步',
  done: '完成',
  submit: '提交',
  skip: '跳过',
  stepOf: '第 {n} 步，共 {m} 步',
  progress: '{n}/{m}',
  completed: '已完成',
  allDone: '全部完成',
  skipped: '已跳过',
  locked: '已锁定',
  blocked: '暂不可用',
  required: '此项为必填项。',
  invalid: '请检查此值。',
  tooShort: '至少输入 {n} 个字符。',
  tooLong: '最多输入 {n} 个字符。',
  tooSmall: '请输入 {n} 或更大的值。',
  tooLarge: '请输入 {n} 或更小的值。',
  npsLow: '不太可能',
  npsHigh: '非常可能',
  rating: '{n}/{m}',
  hint: '提示：{title}',
  gotIt: '知道了',
});
