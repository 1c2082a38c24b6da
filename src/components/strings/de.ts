// The elements' built-in strings in German: dist/onboarding-strings-de.js, loaded beside the script when the locale is German.
import { defineStrings } from './define.js';

defineStrings('de', {
  close: 'Schließen',
  next: 'Weiter',
  back: 'Zurück',
  done: 'Fertig',
  submit: 'Senden',
  skip: 'Überspringen',
  stepOf: 'Schritt {n} von {m}',
  progress: '{n} von {m}',
  completed: 'Erledigt',
  allDone: 'Alles erledigt',
  skipped: 'Übersprungen',
  locked: 'Gesperrt',
  blocked: 'Noch nicht verfügbar',
  required: 'Dieses Feld ist erforderlich.',
  invalid: 'Bitte prüfen Sie diesen Wert.',
  tooShort: 'Mindestens {n} Zeichen.',
  tooLong: 'Höchstens {n} Zeichen.',
  tooSmall: '{n} oder mehr.',
  tooLarge: '{n} oder weniger.',
  npsLow: 'Unwahrscheinlich',
  npsHigh: 'Sehr wahrscheinlich',
  rating: '{n} von {m}',
  hint: 'Hinweis: {title}',
  gotIt: 'Verstanden',
});
