import { mount } from 'svelte';
import App from './App.svelte';
import './theme.css';
import './app.css';
import NoShellToken from './screens/NoShellToken.svelte';
import { missingShellToken } from './shell-session';
import { warmUpMedia } from './lib/media-warm-up';

mount(missingShellToken ? NoShellToken : App, { target: document.getElementById('app')! });
// The first recording opened plays as soon as the next (issue 31): see media-warm-up.ts.
if (!missingShellToken) warmUpMedia();
