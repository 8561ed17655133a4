import { useState } from 'react';

/**
 * A form's values, and a change handler per key for its text inputs and selects.
 * @param initial the values the form starts with (read once).
 */
export function useForm<T extends object>(initial: T | (() => T)) {
  const [form, setForm] = useState<T>(initial);
  const set = (key: keyof T) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return { form, setForm, set };
}
