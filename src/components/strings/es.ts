// The elements' built-in strings in Spanish: dist/onboarding-strings-es.js, loaded beside the script when the locale is Spanish.
import { defineStrings } from './define.js';

defineStrings('es', {
  close: 'Cerrar',
  next: 'Siguiente',
  back: 'Atrás',
  done: 'Listo',
  submit: 'Enviar',
  skip: 'Omitir',
  stepOf: 'Paso {n} de {m}',
  progress: '{n} de {m}',
  completed: 'Completado',
  allDone: 'Todo listo',
  skipped: 'Omitido',
  locked: 'Bloqueado',
  blocked: 'Aún no disponible',
  required: 'Este campo es obligatorio.',
  invalid: 'Revisa este valor.',
  tooShort: 'Usa al menos {n} caracteres.',
  tooLong: 'Usa como máximo {n} caracteres.',
  tooSmall: 'Usa {n} o más.',
  tooLarge: 'Usa {n} o menos.',
  npsLow: 'Poco probable',
  npsHigh: 'Muy probable',
  rating: '{n} de {m}',
  hint: 'Sugerencia: {title}',
  gotIt: 'Entendido',
});
