import { NavLink } from 'react-router';
import { paths } from '#web/paths.ts';

/** The two mail pages for administrators: what waits in the local mailbox, and what each email looks like. */
export function MailSections() {
  return (
    <nav className="tabs" aria-label="Mail sections">
      <NavLink to={paths.adminMail} end className="tab">
        Mailbox
      </NavLink>
      <NavLink to={paths.adminMailTemplates} className="tab">
        Templates
      </NavLink>
    </nav>
  );
}
