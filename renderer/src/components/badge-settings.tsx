import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { desktop } from '../desktop';
import type { BadgeSettings } from '../door/use-station-settings';

/** The station's badge printing: print on check-in, print twice, and (desktop app) the printer. */
export function BadgeSettingsFields({ value, onChange }: { value: BadgeSettings; onChange: (next: BadgeSettings) => void }) {
  const { t } = useTranslation('badges');
  const [printers, setPrinters] = useState<string[]>();
  useEffect(() => {
    let live = true;
    void desktop?.printers?.().then((names) => live && setPrinters(names));
    return () => {
      live = false;
    };
  }, []);
  return (
    <fieldset className="badges">
      <legend>{t('settings.legend')}</legend>
      <label className="check">
        <input type="checkbox" name="printOnCheckIn" checked={value.printOnCheckIn} onChange={(e) => onChange({ ...value, printOnCheckIn: e.target.checked })} />
        {t('settings.printOnCheckIn')}
      </label>
      <label className="check">
        <input type="checkbox" name="printTwice" checked={value.printTwice} onChange={(e) => onChange({ ...value, printTwice: e.target.checked })} />
        {t('settings.printTwice')}
      </label>
      {printers && (
        <label>
          {t('settings.printer')}
          <select name="printer" value={value.printer} onChange={(e) => onChange({ ...value, printer: e.target.value })}>
            <option value="">{t('settings.dialog')}</option>
            {printers.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      )}
    </fieldset>
  );
}
