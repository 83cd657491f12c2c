import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { AppErrorBoundary } from './components/error-screens.tsx';
import { runBuildCheck } from './lib/build-check.ts';
import { createQueryClient } from './lib/query-client.ts';
import { createAppRouter } from './router.tsx';
import './styles.css';

export const frameworkFailedMessage = 'React Failed to Load: Please disable React DevTools extension and refresh';

function showFrameworkFailure(error: unknown) {
  console.error(error);
  const container = document.getElementById('root') ?? document.body;
  container.textContent = frameworkFailedMessage;
  container.setAttribute('role', 'alert');
}

async function start() {
  if (await runBuildCheck()) return;
  const container = document.getElementById('root');
  if (!container) throw new Error('The #root element is missing.');
  const queryClient = createQueryClient();
  createRoot(container).render(
    <StrictMode>
      <AppErrorBoundary>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={createAppRouter()} />
        </QueryClientProvider>
      </AppErrorBoundary>
    </StrictMode>,
  );
}

start().catch(showFrameworkFailure);
