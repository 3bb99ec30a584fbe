import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';

// Adds `.openapi()` to zod once; every schema file imports z from here.
extendZodWithOpenApi(z);

export { z };
