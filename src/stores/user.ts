// The current user's properties as the page last passed them to identify; elements substitute them as ${name}.
import { atom } from 'nanostores';
import type { Properties } from '../api/wire.js';

export const $userProperties = atom<Properties>({});
