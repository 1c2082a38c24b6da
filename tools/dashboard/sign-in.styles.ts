// Styles of <ob-sign-in>: one centred card.
import { css } from 'lit';

export default css`
  .wrap {
    min-height: 100vh;
    display: grid;
    place-items: center;
    padding: 24px;
  }
  form {
    width: min(420px, 100%);
    display: grid;
    gap: 12px;
    padding: 28px;
  }
  label {
    font-weight: 600;
    margin-top: 4px;
  }
  input {
    font: inherit;
    color: var(--db-text);
    background: var(--db-raised);
    border: 1px solid var(--db-border);
    border-radius: 8px;
    padding: 10px 12px;
  }
  input:focus-visible {
    outline: 2px solid var(--db-accent);
    outline-offset: 1px;
  }
  p {
    margin: 0;
  }
  button {
    padding: 10px 14px;
  }
  .brand {
    display: flex;
    align-items: center;
    gap: 8px;
    font-weight: 650;
    color: var(--db-muted);
  }
  .logo {
    width: 22px;
    height: 22px;
    border-radius: 6px;
    background: linear-gradient(135deg, var(--db-accent), var(--db-good));
  }
`;
