import { mount } from 'svelte';
import App from './App.svelte';
import './theme.css';
import './app.css';
import NoShellToken from './screens/NoShellToken.svelte';
import { missingShellToken } from './shell-session';

mount(missingShellToken ? NoShellToken : App, { target: document.getElementById('app')! });
