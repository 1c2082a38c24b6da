// The elements' built-in strings in Portuguese (Brazil): dist/onboarding-strings-pt-BR.js, loaded beside the script when the locale is Portuguese (Brazil).
import { defineStrings } from './define.js';

defineStrings('pt-BR', {
  close: 'Fechar',
  next: 'Próximo',
  back: 'Voltar',
  done: 'Concluir',
  submit: 'Enviar',
  skip: 'Pular',
  stepOf: 'Etapa {n} de {m}',
  progress: '{n} de {m}',
  completed: 'Concluído',
  allDone: 'Tudo pronto',
  skipped: 'Pulado',
  locked: 'Bloqueado',
  blocked: 'Ainda não disponível',
  required: 'Este campo é obrigatório.',
  invalid: 'Verifique este valor.',
  tooShort: 'Use pelo menos {n} caracteres.',
  tooLong: 'Use no máximo {n} caracteres.',
  tooSmall: 'Use {n} ou mais.',
  tooLarge: 'Use {n} ou menos.',
  npsLow: 'Pouco provável',
  npsHigh: 'Muito provável',
  rating: '{n} de {m}',
  hint: 'Dica: {title}',
  gotIt: 'Entendi',
});
