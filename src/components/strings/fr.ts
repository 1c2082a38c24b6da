// The elements' built-in strings in French: dist/onboarding-strings-fr.js, loaded beside the script when the locale is French.
import { defineStrings } from './define.js';

defineStrings('fr', {
  close: 'Fermer',
  next: 'Suivant',
  back: 'Retour',
  done: 'Terminé',
  submit: 'Envoyer',
  skip: 'Passer',
  stepOf: 'Étape {n} sur {m}',
  progress: '{n} sur {m}',
  completed: 'Terminé',
  allDone: 'Tout est fait',
  skipped: 'Ignoré',
  locked: 'Verrouillé',
  blocked: 'Pas encore disponible',
  required: 'Ce champ est obligatoire.',
  invalid: 'Veuillez vérifier cette valeur.',
  tooShort: 'Utilisez au moins {n} caractères.',
  tooLong: 'Utilisez au plus {n} caractères.',
  tooSmall: 'Utilisez {n} ou plus.',
  tooLarge: 'Utilisez {n} ou moins.',
  npsLow: 'Peu probable',
  npsHigh: 'Très probable',
  rating: '{n} sur {m}',
  hint: 'Astuce : {title}',
  gotIt: 'J’ai compris',
});
